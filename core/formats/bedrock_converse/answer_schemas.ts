/**
 * Converse answers and ConverseStream events as Bedrock sends them: lenient (other fields kept
 * and ignored, a field missing or of another type read as undefined), only the fields the
 * gateway reads. Token counts stay unknown for billing's `reportedCount`.
 */

import { z } from "zod";
import {
  listOf,
  optionalNumber,
  optionalObject,
  optionalString,
  unknownField,
} from "../../util/lenient_schema.ts";

/** `usage`: input apart from the cache's reads and writes, as Anthropic counts them. */
export const converseUsageSchema = optionalObject({
  inputTokens: unknownField,
  outputTokens: unknownField,
  cacheReadInputTokens: unknownField,
  cacheWriteInputTokens: unknownField,
});

/** Reasoning: readable text with its signature, or redacted bytes (base64). */
const reasoningSchema = optionalObject({
  reasoningText: optionalObject({ text: optionalString, signature: optionalString }),
  redactedContent: optionalString,
});

/** A content block: text, a tool use or reasoning (images and documents are not read). */
export const converseContentBlockSchema = z.looseObject({
  text: optionalString,
  toolUse: optionalObject({ toolUseId: optionalString, name: optionalString, input: unknownField }),
  reasoningContent: reasoningSchema,
});

/** A whole Converse answer. */
export const converseAnswerSchema = z.looseObject({
  output: optionalObject({
    message: optionalObject({ role: optionalString, content: listOf(converseContentBlockSchema) }),
  }),
  stopReason: optionalString,
  usage: unknownField,
});

/** One ConverseStream event's payload (its kind is the event's name). */
export const converseStreamEventSchema = z.looseObject({
  contentBlockIndex: optionalNumber,
  start: optionalObject({
    toolUse: optionalObject({ toolUseId: optionalString, name: optionalString }),
  }),
  delta: optionalObject({
    text: optionalString,
    toolUse: optionalObject({ input: optionalString }),
    reasoningContent: optionalObject({
      text: optionalString,
      signature: optionalString,
      redactedContent: optionalString,
    }),
  }),
  stopReason: optionalString,
  usage: unknownField,
  message: optionalString,
  type: optionalString,
});

export type ConverseStreamEvent = z.output<typeof converseStreamEventSchema>;
