/** Generate-content answers in neutral terms (pure). */

import type { NeutralResponse } from "../neutral.ts";
import { stopWithCalls } from "../neutral.ts";
import { geminiParts } from "./_parts.ts";
import { geminiStop } from "./_stop.ts";
import { geminiUsage } from "./_usage.ts";
import { geminiResponseSchema } from "./answer_schemas.ts";
import { readLenient } from "../../util/lenient_schema.ts";

/** An upstream GenerateContentResponse in neutral terms. */
export function decodeGeminiResponse(json: unknown): NeutralResponse {
  const answer = readLenient(geminiResponseSchema, json);
  const candidate = answer.candidates[0];
  const parts = geminiParts(candidate?.content?.parts ?? []);
  const blocked = answer.promptFeedback?.blockReason !== undefined;
  return {
    id: answer.responseId ?? "",
    model: answer.modelVersion ?? "",
    created: Math.floor(Date.now() / 1000),
    parts,
    stop: blocked ? "content_filter" : stopWithCalls(
      geminiStop(candidate?.finishReason),
      parts.some((part) => part.type === "tool_call"),
    ),
    usage: geminiUsage(answer.usageMetadata),
  };
}
