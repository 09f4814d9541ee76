/** Neutral answers as generate-content answers (pure). */

import type { NeutralPart, NeutralResponse } from "../neutral.ts";
import { argumentsObject } from "../neutral.ts";
import { responseIdOf } from "./_ids.ts";
import { GEMINI_FINISH } from "./_stop.ts";
import { encodeGeminiUsage } from "./_usage.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

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
