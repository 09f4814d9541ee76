/**
 * Chat-completions answers and stream chunks as upstreams send them: lenient (other fields kept
 * and ignored, a field missing or of another type read as undefined), only the fields the
 * gateway reads. Token counts stay unknown for billing's `reportedCount`; `usage` is parsed
 * apart, by its own schema, only where it is read.
 */

import { z } from "zod";
import {
  listOf,
  optional,
  optionalNumber,
  optionalObject,
  optionalString,
  unknownField,
} from "../../util/lenient_schema.ts";

/** `usage`, on an answer or on a stream's last chunk. */
export const openAIChatUsageSchema = optionalObject({
  prompt_tokens: unknownField,
  completion_tokens: unknownField,
  total_tokens: unknownField,
  prompt_tokens_details: optionalObject({ cached_tokens: unknownField }),
  completion_tokens_details: optionalObject({ reasoning_tokens: unknownField }),
});

const toolCallSchema = z.looseObject({
  index: optionalNumber,
  id: optionalString,
  function: optionalObject({ name: optionalString, arguments: optionalString }),
});

/** What a message and a delta both carry. */
const messageShape = {
  content: optionalString,
  refusal: optionalString,
  reasoning_content: optionalString,
  reasoning: optionalString,
  tool_calls: listOf(toolCallSchema),
};

/** A completion's message. */
export const openAIChatMessageSchema = z.looseObject(messageShape);

/** A whole chat completion. */
export const openAIChatCompletionSchema = z.looseObject({
  id: optionalString,
  model: optionalString,
  created: optionalNumber,
  choices: listOf(z.looseObject({
    message: optional(openAIChatMessageSchema),
    finish_reason: optionalString,
  })),
  /** Read by chatUsage() only when present. */
  usage: unknownField,
});

/** One stream chunk. `error` is what some compatible upstreams send mid-stream. */
export const openAIChatChunkSchema = z.looseObject({
  id: optionalString,
  model: optionalString,
  choices: listOf(z.looseObject({
    delta: optionalObject(messageShape),
    finish_reason: optionalString,
  })),
  usage: openAIChatUsageSchema,
  error: unknownField,
});

/** A stream's error: an object with a message and a code, or anything else (read as `{}`). */
export const openAIChatErrorSchema = z.looseObject({
  message: optionalString,
  code: optionalString,
});

export type OpenAIChatUsage = NonNullable<z.output<typeof openAIChatUsageSchema>>;
export type OpenAIChatDelta = NonNullable<
  z.output<typeof openAIChatChunkSchema>["choices"][number]["delta"]
>;
export type OpenAIChatToolCall = z.output<typeof toolCallSchema>;
