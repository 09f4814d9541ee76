/** Generate-content requests in neutral terms (pure). */

import {
  appendTurn,
  type NeutralMessage,
  type NeutralPart,
  type NeutralReasoning,
  type NeutralRequest,
  type NeutralTool,
  type NeutralToolChoice,
  optionRecorder,
  resultText,
} from "../neutral.ts";
import { REASONING_HISTORY_FIELD, signedBy } from "../signature.ts";
import { signatureBefore, thoughtOf } from "./_parts.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const READ = new Set([
  "contents",
  "systemInstruction",
  "tools",
  "toolConfig",
  "generationConfig",
  "model",
]);

/** Why a generate-content request needs a gemini upstream, or null. */
export function geminiOnlyFeature(body: Json): string | null {
  const builtIn = (body.tools ?? []).find((tool: Json) => !tool?.functionDeclarations);
  if (builtIn) return `tools[${Object.keys(builtIn)[0] ?? "?"}]`;
  if (body.cachedContent) return "cachedContent";
  const config = body.generationConfig ?? {};
  if ((config.candidateCount ?? 1) > 1) return "generationConfig.candidateCount";
  const modalities: string[] = config.responseModalities ?? [];
  const other = modalities.find((modality) => modality.toUpperCase() !== "TEXT");
  if (other) return `generationConfig.responseModalities[${other}]`;
  return null;
}

/** OpenAPI-style schemas (`type: "OBJECT"`) as JSON Schema (`type: "object"`). */
export function jsonSchemaOf(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(jsonSchemaOf);
  if (!schema || typeof schema !== "object") return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] = key === "type" && typeof value === "string"
      ? value.toLowerCase()
      : key === "properties" && value && typeof value === "object"
      ? Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, jsonSchemaOf(sub)]))
      : typeof value === "object"
      ? jsonSchemaOf(value)
      : value;
  }
  return out;
}

function toolChoiceOf(config: Json): NeutralToolChoice | undefined {
  const mode = config?.functionCallingConfig?.mode;
  const allowed: string[] = config?.functionCallingConfig?.allowedFunctionNames ?? [];
  switch (mode) {
    case "AUTO":
    case "VALIDATED":
      return "auto";
    case "NONE":
      return "none";
    case "ANY":
      return allowed.length === 1 ? { name: allowed[0] } : "required";
    default:
      return undefined;
  }
}

/** A generate-content body for `model` in neutral terms. */
export function decodeGeminiRequest(
  body: Json,
  { model, stream }: { model: string; stream: boolean },
): NeutralRequest {
  const instruction = body.systemInstruction;
  const system = instruction
    ? [(instruction.parts ?? []).map((part: Json) => part?.text ?? "").join("")]
    : [];
  const messages = turnsOf(body);
  const { options, fieldOf } = optionsOf(body);
  fieldOf.reasoningHistory = REASONING_HISTORY_FIELD.gemini;
  return {
    model,
    system,
    messages,
    tools: toolsOf(body),
    toolChoice: toolChoiceOf(body.toolConfig),
    stream,
    options,
    fieldOf,
    unmapped: Object.keys(body).filter((field) => !READ.has(field) && body[field] != null),
  };
}

/** A function call of the history, for the responses that answer it. */
type Call = { id: string; name: string; answered: boolean };

function turnsOf(body: Json): NeutralMessage[] {
  const messages: NeutralMessage[] = [];
  const calls: Call[] = [];
  for (const content of body.contents ?? []) {
    const role = content.role === "model" ? "assistant" : "user";
    const parts: NeutralPart[] = [];
    for (const part of content.parts ?? []) {
      const signature = signatureBefore(part);
      if (signature) parts.push(signature);
      const neutral = partOf(part, calls);
      if (neutral) parts.push(neutral);
    }
    appendTurn(messages, { role, parts: joinStreamedThoughts(parts) });
  }
  return messages;
}

/**
 * A Gemini client keeps a streamed answer as it came: another provider's thinking as thought
 * parts and then its signature in a part of its own (encode_stream.ts). That provider needs the
 * thinking whole with its signature, so the pieces are joined back.
 */
function joinStreamedThoughts(parts: NeutralPart[]): NeutralPart[] {
  const out: NeutralPart[] = [];
  let unsigned: Array<{ text: string }> = [];
  for (const part of parts) {
    const signature = part.type === "reasoning" && !part.text ? part.signature : undefined;
    const signer = signature ? signedBy(signature) : undefined;
    const foreign = signer && signer.signer !== "gemini" && signer.kind !== "redacted";
    if (foreign && unsigned.length) {
      out.splice(out.length - unsigned.length, unsigned.length, {
        type: "reasoning",
        text: unsigned.map((piece) => piece.text).join(""),
        signature,
      });
    } else out.push(part);
    unsigned = part.type === "reasoning" && !part.signature ? [...unsigned, part] : [];
  }
  return out;
}

function partOf(part: Json, calls: Call[]): NeutralPart | undefined {
  if (typeof part.text === "string") {
    return part.thought ? thoughtOf(part) : { type: "text", text: part.text };
  }
  if (part.inlineData) {
    return { type: "image", mimeType: part.inlineData.mimeType, data: part.inlineData.data };
  }
  if (part.fileData?.fileUri) return { type: "image_url", url: part.fileData.fileUri };
  if (part.functionCall) {
    const id = part.functionCall.id ?? `call_${calls.length}`;
    calls.push({ id, name: part.functionCall.name, answered: false });
    return {
      type: "tool_call",
      id,
      name: part.functionCall.name,
      arguments: JSON.stringify(part.functionCall.args ?? {}),
    };
  }
  if (part.functionResponse) return resultOf(part.functionResponse, calls);
  return undefined;
}

/** A function response, matched to its call by id, else to the first unanswered of its name. */
function resultOf(response: Json, calls: Call[]): NeutralPart {
  const call = response.id
    ? calls.find((candidate) => candidate.id === response.id)
    : calls.find((candidate) => candidate.name === response.name && !candidate.answered);
  if (call) call.answered = true;
  const value = response.response;
  return {
    type: "tool_result",
    callId: call?.id ?? response.id ?? response.name,
    content: typeof value?.result === "string"
      ? value.result
      : typeof value?.output === "string"
      ? value.output
      : resultText(value),
  };
}

function optionsOf(body: Json): Pick<NeutralRequest, "options" | "fieldOf"> {
  const config = body.generationConfig ?? {};
  const { options, fieldOf, set } = optionRecorder("generationConfig.");
  set("maxOutputTokens", config.maxOutputTokens, "maxOutputTokens");
  set("temperature", config.temperature, "temperature");
  set("topP", config.topP, "topP");
  set("topK", config.topK, "topK");
  set("stop", config.stopSequences, "stopSequences");
  set("seed", config.seed, "seed");
  set("presencePenalty", config.presencePenalty, "presencePenalty");
  set("frequencyPenalty", config.frequencyPenalty, "frequencyPenalty");
  set("reasoning", reasoningOf(config.thinkingConfig), "thinkingConfig");
  const schema = config.responseJsonSchema ?? config.responseSchema;
  if (config.responseMimeType === "application/json") {
    set(
      "responseFormat",
      schema
        ? { type: "json_schema", name: "response", schema: jsonSchemaOf(schema) }
        : { type: "json_object" },
      "responseMimeType",
    );
  }
  return { options, fieldOf };
}

const LEVELS = new Set(["minimal", "low", "medium", "high"]);

/**
 * `thinkingConfig` as reasoning: a budget (-1 is the model's own choice), a level, and whether
 * thoughts come back. A budget of 0 turns thinking off, Gemini's own business: nothing to carry.
 */
function reasoningOf(thinking: Json): NeutralReasoning | undefined {
  if (!thinking || typeof thinking !== "object" || thinking.thinkingBudget === 0) return undefined;
  const reasoning: NeutralReasoning = {};
  const budget = thinking.thinkingBudget;
  if (typeof budget === "number" && budget > 0) reasoning.budgetTokens = budget;
  if (budget === -1) reasoning.adaptive = true;
  const level = String(thinking.thinkingLevel ?? "").toLowerCase();
  if (LEVELS.has(level)) reasoning.effort = level as NeutralReasoning["effort"];
  if (typeof thinking.includeThoughts === "boolean") {
    reasoning.summary = thinking.includeThoughts ? "auto" : "none";
  }
  return reasoning;
}

/** Function declarations only: built-in tools stay with a gemini upstream. */
function toolsOf(body: Json): NeutralTool[] {
  const declarations = (body.tools ?? []).flatMap((tool: Json) => tool?.functionDeclarations ?? []);
  return declarations.map((fn: Json) => ({
    name: fn.name,
    description: fn.description,
    parameters: fn.parametersJsonSchema ?? jsonSchemaOf(fn.parameters) ??
      { type: "object", properties: {} },
  }));
}
