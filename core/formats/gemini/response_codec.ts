/** Generate-content answers to and from the neutral representation (pure). */

import type { NeutralPart, NeutralResponse, NeutralUsage, StopReason } from "../neutral.ts";
import { argumentsObject, stopWithCalls } from "../neutral.ts";
import { randomBase62 } from "../../util/ids.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const FILTERED = new Set([
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY",
]);

export function geminiStop(reason: string | undefined): StopReason {
  if (reason === "MAX_TOKENS") return "length";
  if (reason && FILTERED.has(reason)) return "content_filter";
  return "stop";
}

export const GEMINI_FINISH: Record<StopReason, string> = {
  stop: "STOP",
  tool_calls: "STOP",
  length: "MAX_TOKENS",
  content_filter: "SAFETY",
};

/** `promptTokenCount` includes cached tokens; thoughts are output next to candidates. */
export function geminiUsage(usage: Json): NeutralUsage | undefined {
  if (!usage || typeof usage !== "object") return undefined;
  const input = Math.max(0, (usage.promptTokenCount ?? 0) + (usage.toolUsePromptTokenCount ?? 0));
  const thoughts = Math.max(0, usage.thoughtsTokenCount ?? 0);
  return {
    input_tokens: input,
    cached_input_tokens: Math.min(input, Math.max(0, usage.cachedContentTokenCount ?? 0)),
    output_tokens: Math.max(0, usage.candidatesTokenCount ?? 0) + thoughts,
    ...(usage.thoughtsTokenCount !== undefined ? { reasoning_tokens: thoughts } : {}),
  };
}

export function encodeGeminiUsage(usage: NeutralUsage) {
  const thoughts = usage.reasoning_tokens ?? 0;
  return {
    promptTokenCount: usage.input_tokens,
    candidatesTokenCount: usage.output_tokens - thoughts,
    totalTokenCount: usage.input_tokens + usage.output_tokens,
    ...(usage.cached_input_tokens ? { cachedContentTokenCount: usage.cached_input_tokens } : {}),
    ...(thoughts ? { thoughtsTokenCount: thoughts } : {}),
  };
}

/** A fresh id for a function call Gemini sent without one (ids must differ across turns). */
export function newCallId(): string {
  return `call_${randomBase62(20)}`;
}

/** The neutral parts of one candidate's parts. */
export function geminiParts(parts: Json[]): NeutralPart[] {
  const out: NeutralPart[] = [];
  for (const part of parts ?? []) {
    if (typeof part?.text === "string") {
      out.push(
        part.thought
          ? { type: "reasoning", text: part.text, signature: part.thoughtSignature }
          : { type: "text", text: part.text },
      );
    } else if (part?.functionCall) {
      out.push({
        type: "tool_call",
        id: part.functionCall.id ?? newCallId(),
        name: part.functionCall.name,
        arguments: JSON.stringify(part.functionCall.args ?? {}),
      });
    } else if (part?.inlineData) {
      out.push({ type: "image", mimeType: part.inlineData.mimeType, data: part.inlineData.data });
    }
  }
  return out;
}

export function decodeGeminiResponse(answer: Json): NeutralResponse {
  const candidate = answer?.candidates?.[0];
  const parts = geminiParts(candidate?.content?.parts ?? []);
  const blocked = answer?.promptFeedback?.blockReason !== undefined;
  return {
    id: answer?.responseId ?? "",
    model: answer?.modelVersion ?? "",
    created: Math.floor(Date.now() / 1000),
    parts,
    stop: blocked ? "content_filter" : stopWithCalls(
      geminiStop(candidate?.finishReason),
      parts.some((part) => part.type === "tool_call"),
    ),
    usage: geminiUsage(answer?.usageMetadata),
  };
}

/** A neutral part as a Gemini part. */
export function geminiPart(part: NeutralPart): Json | null {
  switch (part.type) {
    case "text":
      return { text: part.text };
    case "reasoning":
      return {
        text: part.text,
        thought: true,
        ...(part.signature ? { thoughtSignature: part.signature } : {}),
      };
    case "tool_call":
      return {
        functionCall: { id: part.id, name: part.name, args: argumentsObject(part.arguments) },
      };
    case "image":
      return { inlineData: { mimeType: part.mimeType, data: part.data } };
    default:
      return null;
  }
}

export function responseIdOf(id: string): string {
  return id || randomBase62(22);
}

export function encodeGeminiResponse(answer: NeutralResponse, model: string): Json {
  return {
    candidates: [{
      content: {
        role: "model",
        parts: answer.parts.map(geminiPart).filter((part) => part !== null),
      },
      finishReason: GEMINI_FINISH[answer.stop],
      index: 0,
    }],
    ...(answer.usage ? { usageMetadata: encodeGeminiUsage(answer.usage) } : {}),
    modelVersion: model,
    responseId: responseIdOf(answer.id),
  };
}
