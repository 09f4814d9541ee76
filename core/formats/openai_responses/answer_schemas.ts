/**
 * Responses-API response objects, output items and stream events as upstreams send them:
 * lenient (other fields kept and ignored, a field missing or of another type read as undefined),
 * only the fields the gateway reads. `usage` is parsed apart, by its own schema, where it is read.
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

/** `usage` of a response object; token counts stay unknown for billing's `reportedCount`. */
export const responsesUsageSchema = optionalObject({
  input_tokens: unknownField,
  output_tokens: unknownField,
  input_tokens_details: optionalObject({ cached_tokens: unknownField }),
  output_tokens_details: optionalObject({ reasoning_tokens: unknownField }),
});

/** One output item: a message, reasoning, a function call or an image generation call. */
export const responsesOutputItemSchema = z.looseObject({
  type: optionalString,
  content: listOf(z.looseObject({
    type: optionalString,
    text: optionalString,
    refusal: optionalString,
  })),
  summary: listOf(z.looseObject({ text: optionalString })),
  encrypted_content: optionalString,
  call_id: optionalString,
  name: optionalString,
  arguments: optionalString,
  result: optionalString,
});

/** A response object, whole or inside a stream's `response.*` events. */
export const responsesResponseSchema = z.looseObject({
  id: optionalString,
  model: optionalString,
  created_at: optionalNumber,
  status: optionalString,
  incomplete_details: optionalObject({ reason: optionalString }),
  output: listOf(responsesOutputItemSchema),
  error: optionalObject({ message: optionalString, code: optionalString }),
  usage: unknownField,
});

/** One stream event (its `type` may also come as the SSE event name). */
export const responsesStreamEventSchema = z.looseObject({
  type: optionalString,
  sequence_number: optionalNumber,
  response: optionalObject(responsesResponseSchema.shape),
  item: optional(responsesOutputItemSchema),
  output_index: optionalNumber,
  delta: optionalString,
  message: optionalString,
  code: optionalString,
  error: optionalObject({ message: optionalString }),
});

export type ResponsesOutputItem = z.output<typeof responsesOutputItemSchema>;
export type ResponsesResponse = z.output<typeof responsesResponseSchema>;
export type ResponsesStreamEvent = z.output<typeof responsesStreamEventSchema>;
