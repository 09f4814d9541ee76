/**
 * Messages-API answers and stream events as upstreams send them: lenient (other fields kept and
 * ignored, a field missing or of another type read as undefined), only the fields the gateway
 * reads. `usage` is parsed apart, by its own schema, where it is read.
 */

import { z } from "zod";
import {
  listOf,
  optionalNumber,
  optionalObject,
  optionalString,
  unknownField,
} from "../../util/lenient_schema.ts";

/** `usage`; token counts stay unknown for billing's `reportedCount`. */
export const anthropicUsageSchema = optionalObject({
  input_tokens: unknownField,
  output_tokens: unknownField,
  cache_read_input_tokens: unknownField,
  cache_creation_input_tokens: unknownField,
});

/** A content block: text, thinking, redacted thinking or a tool use. */
export const anthropicContentBlockSchema = z.looseObject({
  type: optionalString,
  text: optionalString,
  thinking: optionalString,
  signature: optionalString,
  data: optionalString,
  id: optionalString,
  name: optionalString,
  /** A tool use's input, passed on as it came. */
  input: unknownField,
});

/** A whole message. */
export const anthropicMessageSchema = z.looseObject({
  id: optionalString,
  model: optionalString,
  content: listOf(anthropicContentBlockSchema),
  stop_reason: optionalString,
  usage: unknownField,
});

/** One stream event (its `type` may also come as the SSE event name). */
export const anthropicStreamEventSchema = z.looseObject({
  type: optionalString,
  index: optionalNumber,
  message: optionalObject({ id: optionalString, model: optionalString, usage: unknownField }),
  content_block: optionalObject(anthropicContentBlockSchema.shape),
  delta: optionalObject({
    type: optionalString,
    text: optionalString,
    thinking: optionalString,
    signature: optionalString,
    partial_json: optionalString,
    stop_reason: optionalString,
  }),
  usage: unknownField,
  error: optionalObject({ message: optionalString, type: optionalString }),
});

export type AnthropicStreamEvent = z.output<typeof anthropicStreamEventSchema>;
