/** Generate-content requests to and from the neutral representation (pure). */

import {
  appendTurn,
  argumentsObject,
  type NeutralMessage,
  type NeutralPart,
  type NeutralRequest,
  type NeutralToolChoice,
  type OptionName,
  optionRecorder,
  resultText,
  unsupportedOptions,
} from "../neutral.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const READ = new Set([
  "contents",
  "systemInstruction",
  "system_instruction",
  "tools",
  "toolConfig",
  "generationConfig",
  "model",
]);

/**
 * Google's documented value for a function call that carries no thought signature of its own
 * (history written by another model): Gemini 3 refuses such calls without one.
 */
export const SKIP_SIGNATURE = "skip_thought_signature_validator";

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
export function decodeGeminiRequest(body: Json, model: string, stream: boolean): NeutralRequest {
  const instruction = body.systemInstruction ?? body.system_instruction;
  const system = instruction
    ? [(instruction.parts ?? []).map((part: Json) => part?.text ?? "").join("")]
    : [];
  const messages: NeutralMessage[] = [];
  const calls: Array<{ id: string; name: string; answered: boolean }> = [];
  for (const content of body.contents ?? []) {
    const role = content.role === "model" ? "assistant" : "user";
    const parts: NeutralPart[] = [];
    for (const part of content.parts ?? []) {
      if (typeof part.text === "string") {
        parts.push(
          part.thought
            ? { type: "reasoning", text: part.text, signature: part.thoughtSignature }
            : { type: "text", text: part.text },
        );
      } else if (part.inlineData) {
        parts.push({
          type: "image",
          mimeType: part.inlineData.mimeType,
          data: part.inlineData.data,
        });
      } else if (part.fileData?.fileUri) {
        parts.push({ type: "image_url", url: part.fileData.fileUri });
      } else if (part.functionCall) {
        const id = part.functionCall.id ?? `call_${calls.length}`;
        calls.push({ id, name: part.functionCall.name, answered: false });
        parts.push({
          type: "tool_call",
          id,
          name: part.functionCall.name,
          arguments: JSON.stringify(part.functionCall.args ?? {}),
        });
      } else if (part.functionResponse) {
        const response = part.functionResponse;
        const call = response.id
          ? calls.find((candidate) => candidate.id === response.id)
          : calls.find((candidate) => candidate.name === response.name && !candidate.answered);
        if (call) call.answered = true;
        const value = response.response;
        parts.push({
          type: "tool_result",
          callId: call?.id ?? response.id ?? response.name,
          content: typeof value?.result === "string"
            ? value.result
            : typeof value?.output === "string"
            ? value.output
            : resultText(value),
        });
      }
    }
    appendTurn(messages, role, parts);
  }
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
  const thinking = config.thinkingConfig;
  if (thinking && (thinking.thinkingBudget ?? 1) !== 0) {
    const level = thinking.thinkingLevel?.toLowerCase();
    set("reasoning", {
      ...(thinking.thinkingBudget > 0 ? { budgetTokens: thinking.thinkingBudget } : {}),
      ...(level === "low" || level === "medium" || level === "high" ? { effort: level } : {}),
    }, "thinkingConfig");
  }
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
  const declarations = (body.tools ?? []).flatMap((tool: Json) => tool?.functionDeclarations ?? []);
  return {
    model,
    system,
    messages,
    tools: declarations.map((fn: Json) => ({
      name: fn.name,
      description: fn.description,
      parameters: fn.parametersJsonSchema ?? jsonSchemaOf(fn.parameters) ??
        { type: "object", properties: {} },
    })),
    toolChoice: toolChoiceOf(body.toolConfig),
    stream,
    options,
    fieldOf,
    unmapped: Object.keys(body).filter((field) => !READ.has(field) && body[field] != null),
  };
}

const BUDGET_BY_EFFORT = { minimal: 512, low: 2048, medium: 8192, high: 24576 };

const SUPPORTED: ReadonlySet<OptionName> = new Set<OptionName>([
  "maxOutputTokens",
  "temperature",
  "topP",
  "topK",
  "stop",
  "seed",
  "presencePenalty",
  "frequencyPenalty",
  "reasoning",
  "responseFormat",
]);

/** The generate-content body for `request` (the model goes in the URL, not the body). */
export function encodeGeminiRequest(
  request: NeutralRequest,
): { body: Json; ignored: OptionName[] } {
  const names = new Map<string, string>();
  for (const message of request.messages) {
    for (const part of message.parts) if (part.type === "tool_call") names.set(part.id, part.name);
  }
  const contents: Json[] = [];
  for (const message of request.messages) {
    const parts: Json[] = [];
    for (const part of message.parts) {
      switch (part.type) {
        case "text":
          if (part.text) parts.push({ text: part.text });
          break;
        case "image":
          parts.push({ inlineData: { mimeType: part.mimeType, data: part.data } });
          break;
        case "image_url":
          parts.push({ fileData: { fileUri: part.url } });
          break;
        case "reasoning":
          // Only Gemini's own signed thoughts mean anything to it.
          if (part.signature) {
            parts.push({ text: part.text, thought: true, thoughtSignature: part.signature });
          }
          break;
        case "tool_call":
          parts.push({
            functionCall: { name: part.name, args: argumentsObject(part.arguments) },
            thoughtSignature: SKIP_SIGNATURE,
          });
          break;
        case "tool_result": {
          parts.push({
            functionResponse: {
              name: names.get(part.callId) ?? part.callId,
              response: part.isError ? { error: part.content } : { result: part.content },
            },
          });
          break;
        }
      }
    }
    if (parts.length) {
      contents.push({ role: message.role === "assistant" ? "model" : "user", parts });
    }
  }
  const o = request.options;
  const body: Json = { contents };
  if (request.system.length) {
    body.systemInstruction = { parts: [{ text: request.system.join("\n\n") }] };
  }
  if (request.tools.length) {
    body.tools = [{
      functionDeclarations: request.tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        parametersJsonSchema: tool.parameters,
      })),
    }];
  }
  const choice = request.toolChoice;
  if (choice) {
    body.toolConfig = {
      functionCallingConfig: typeof choice === "object"
        ? { mode: "ANY", allowedFunctionNames: [choice.name] }
        : { mode: choice === "required" ? "ANY" : choice === "none" ? "NONE" : "AUTO" },
    };
  }
  const config: Json = {};
  if (o.maxOutputTokens !== undefined) config.maxOutputTokens = o.maxOutputTokens;
  if (o.temperature !== undefined) config.temperature = o.temperature;
  if (o.topP !== undefined) config.topP = o.topP;
  if (o.topK !== undefined) config.topK = o.topK;
  if (o.stop) config.stopSequences = o.stop;
  if (o.seed !== undefined) config.seed = o.seed;
  if (o.presencePenalty !== undefined) config.presencePenalty = o.presencePenalty;
  if (o.frequencyPenalty !== undefined) config.frequencyPenalty = o.frequencyPenalty;
  if (o.reasoning) {
    config.thinkingConfig = {
      thinkingBudget: o.reasoning.budgetTokens ?? BUDGET_BY_EFFORT[o.reasoning.effort ?? "medium"],
      includeThoughts: true,
    };
  }
  if (o.responseFormat) {
    config.responseMimeType = "application/json";
    if (o.responseFormat.type === "json_schema") {
      config.responseJsonSchema = o.responseFormat.schema;
    }
  }
  if (Object.keys(config).length) body.generationConfig = config;
  const ignored = unsupportedOptions(o, SUPPORTED);
  return { body, ignored };
}
