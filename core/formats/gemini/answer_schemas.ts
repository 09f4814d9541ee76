/**
 * Generate-content answers (whole, or one per stream chunk) as upstreams send them: lenient
 * (other fields kept and ignored, a field missing or of another type read as undefined), only the
 * fields the gateway reads. `usageMetadata` is parsed apart, by its own schema, where it is read.
 */

import { z } from "zod";
import {
  listOf,
  optionalBoolean,
  optionalObject,
  optionalString,
  unknownField,
} from "../../util/lenient_schema.ts";

/** `usageMetadata`; token counts stay unknown for billing's `reportedCount`. */
export const geminiUsageSchema = optionalObject({
  promptTokenCount: unknownField,
  toolUsePromptTokenCount: unknownField,
  thoughtsTokenCount: unknownField,
  cachedContentTokenCount: unknownField,
  candidatesTokenCount: unknownField,
});

/** One part of a candidate's content. */
export const geminiPartSchema = z.looseObject({
  text: optionalString,
  thought: optionalBoolean,
  thoughtSignature: optionalString,
  functionCall: optionalObject({
    id: optionalString,
    name: optionalString,
    /** The call's arguments, passed on as they came. */
    args: unknownField,
  }),
  inlineData: optionalObject({ mimeType: optionalString, data: optionalString }),
});

/** One candidate answer. */
export const geminiCandidateSchema = z.looseObject({
  content: optionalObject({ parts: listOf(geminiPartSchema) }),
  finishReason: optionalString,
});

/** A GenerateContentResponse, or a stream chunk (which may instead carry an `error`). */
export const geminiResponseSchema = z.looseObject({
  responseId: optionalString,
  modelVersion: optionalString,
  candidates: listOf(geminiCandidateSchema),
  promptFeedback: optionalObject({ blockReason: optionalString }),
  usageMetadata: unknownField,
  error: unknownField,
});

/** A stream's error: `{message, status}`, or anything else (read as `{}`). */
export const geminiErrorSchema = z.looseObject({
  message: optionalString,
  status: optionalString,
});

export type GeminiPart = z.output<typeof geminiPartSchema>;
export type GeminiCandidate = z.output<typeof geminiCandidateSchema>;
export type GeminiResponse = z.output<typeof geminiResponseSchema>;
