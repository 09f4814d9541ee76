/** The responses-API response object, for whole answers and stream events alike. */

import type { NeutralUsage, StopReason } from "../neutral.ts";
import { encodeResponsesUsage } from "./_usage.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** The response object around `output`. */
export function responseObject(fields: {
  id: string;
  created: number;
  model: string;
  status: "in_progress" | "completed" | "incomplete";
  output: Json[];
  stop?: StopReason;
  usage?: NeutralUsage;
}): Json {
  return {
    id: fields.id,
    object: "response",
    created_at: fields.created,
    status: fields.status,
    error: null,
    incomplete_details: fields.status === "incomplete"
      ? { reason: fields.stop === "content_filter" ? "content_filter" : "max_output_tokens" }
      : null,
    model: fields.model,
    output: fields.output,
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
    usage: fields.usage ? encodeResponsesUsage(fields.usage) : null,
  };
}
