/** The responses-API response object, for whole answers and stream events alike. */

import type { NeutralUsage, StopReason } from "../neutral.ts";
import type { RequestSettings } from "./_request_settings.ts";
import { encodeResponsesUsage } from "./_usage.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/**
 * The response object around `output`, with every field OpenAI's definition requires: the
 * request's settings come from `settings` (see `requestSettings`). `usage` is left out until
 * it is known (the definition does not allow null there).
 */
export function responseObject(fields: {
  id: string;
  created: number;
  model: string;
  status: "in_progress" | "completed" | "incomplete";
  output: Json[];
  settings: RequestSettings;
  stop?: StopReason;
  usage?: NeutralUsage;
}): Json {
  const { settings } = fields;
  return {
    id: fields.id,
    object: "response",
    created_at: fields.created,
    status: fields.status,
    completed_at: fields.status === "completed" ? Math.floor(Date.now() / 1000) : null,
    error: null,
    incomplete_details: fields.status === "incomplete"
      ? { reason: fields.stop === "content_filter" ? "content_filter" : "max_output_tokens" }
      : null,
    ...settings,
    model: fields.model,
    output: fields.output,
    ...(fields.usage ? { usage: encodeResponsesUsage(fields.usage) } : {}),
  };
}
