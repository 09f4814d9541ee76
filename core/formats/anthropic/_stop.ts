/** Messages-API stop reasons to and from neutral terms. */

import type { StopReason } from "../neutral.ts";

export function anthropicStop(reason: string | null | undefined): StopReason {
  switch (reason) {
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "tool_use":
      return "tool_calls";
    case "refusal":
      return "content_filter";
    default:
      return "stop";
  }
}

export const ANTHROPIC_STOP: Record<StopReason, string> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_calls: "tool_use",
  content_filter: "refusal",
};

/**
 * `stop_details` beside a stop reason: a refusal's details (a converted answer does not know the
 * category), else null.
 */
export function anthropicStopDetails(stop: StopReason) {
  return stop === "content_filter" ? { type: "refusal", category: null, explanation: null } : null;
}
