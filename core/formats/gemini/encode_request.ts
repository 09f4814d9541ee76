/** Neutral requests as generate-content bodies (pure). */

import {
  argumentsObject,
  type DroppableName,
  type NeutralOptions,
  type NeutralPart,
  type NeutralRequest,
  type OptionName,
  unsupportedOptions,
} from "../neutral.ts";
import { signatureFor } from "../signature.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/**
 * Google's documented value for a function call that carries no thought signature of its own
 * (history written by another model): Gemini 3 refuses such calls without one.
 */
export const SKIP_SIGNATURE = "skip_thought_signature_validator";

const BUDGET_BY_EFFORT = {
  minimal: 512,
  low: 2048,
  medium: 8192,
  high: 24576,
  xhigh: 24576,
  max: 24576,
};

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
  "replayableReasoning",
]);

/** The generate-content body for `request` (the model goes in the URL, not the body). */
export function encodeGeminiRequest(
  request: NeutralRequest,
): { body: Json; ignored: DroppableName[] } {
  const o = request.options;
  const ignored: DroppableName[] = unsupportedOptions(o, SUPPORTED);
  const contents = contentsOf(request, ignored);
  const body: Json = { contents };
  if (request.system.length) {
    body.systemInstruction = { parts: [{ text: request.system.join("\n\n") }] };
  }
  // Gemini's function declarations hold no `strict`; `strict: false` is what they do anyway.
  if (request.tools.some((tool) => tool.strict === true)) ignored.push("toolStrict");
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
  const config = generationConfigOf(o);
  if (Object.keys(config).length) body.generationConfig = config;
  return { body, ignored };
}

/**
 * The turns as contents; a function response names its call, found by the call's id. A Gemini
 * signature that stood alone goes back on the part after it; other reasoning of the history
 * (unsigned, or another provider's) is dropped and named.
 */
function contentsOf(request: NeutralRequest, ignored: DroppableName[]): Json[] {
  const names = new Map<string, string>();
  for (const message of request.messages) {
    for (const part of message.parts) if (part.type === "tool_call") names.set(part.id, part.name);
  }
  const contents: Json[] = [];
  for (const message of request.messages) {
    const parts: Json[] = [];
    let pending: string | undefined;
    for (const part of message.parts) {
      if (part.type === "reasoning") {
        const signed = signatureFor(part.signature, "gemini");
        if (!signed) {
          if (!ignored.includes("reasoningHistory")) ignored.push("reasoningHistory");
        } else if (part.text) {
          parts.push({ text: part.text, thought: true, thoughtSignature: signed.value });
        } else pending = signed.value;
        continue;
      }
      const gemini = partOf(part, names);
      if (!gemini) continue;
      if (pending) gemini.thoughtSignature = pending, pending = undefined;
      parts.push(gemini);
    }
    if (parts.length) {
      contents.push({ role: message.role === "assistant" ? "model" : "user", parts });
    }
  }
  return contents;
}

/** A neutral part as a Gemini part, or undefined when Gemini cannot take it. */
function partOf(part: NeutralPart, names: Map<string, string>): Json | undefined {
  switch (part.type) {
    case "text":
      return part.text ? { text: part.text } : undefined;
    case "image":
      return { inlineData: { mimeType: part.mimeType, data: part.data } };
    case "image_url":
      return { fileData: { fileUri: part.url } };
    case "reasoning":
      return undefined;
    case "tool_call":
      return {
        functionCall: { name: part.name, args: argumentsObject(part.arguments) },
        thoughtSignature: SKIP_SIGNATURE,
      };
    case "tool_result":
      return {
        functionResponse: {
          name: names.get(part.callId) ?? part.callId,
          response: part.isError ? { error: part.content } : { result: part.content },
        },
      };
  }
}

function generationConfigOf(o: NeutralOptions): Json {
  const config: Json = {};
  if (o.maxOutputTokens !== undefined) config.maxOutputTokens = o.maxOutputTokens;
  if (o.temperature !== undefined) config.temperature = o.temperature;
  if (o.topP !== undefined) config.topP = o.topP;
  if (o.topK !== undefined) config.topK = o.topK;
  if (o.stop) config.stopSequences = o.stop;
  if (o.seed !== undefined) config.seed = o.seed;
  if (o.presencePenalty !== undefined) config.presencePenalty = o.presencePenalty;
  if (o.frequencyPenalty !== undefined) config.frequencyPenalty = o.frequencyPenalty;
  const reasoning = o.reasoning;
  // Effort "none": Gemini's default is left alone (some models cannot turn thinking off).
  if (reasoning && reasoning.effort !== "none") {
    config.thinkingConfig = {
      thinkingBudget: reasoning.budgetTokens ??
        (reasoning.adaptive && !reasoning.effort
          ? -1
          : BUDGET_BY_EFFORT[reasoning.effort ?? "medium"]),
      includeThoughts: reasoning.summary !== "none",
    };
  }
  if (o.responseFormat) {
    config.responseMimeType = "application/json";
    if (o.responseFormat.type === "json_schema") {
      config.responseJsonSchema = o.responseFormat.schema;
    }
  }
  return config;
}
