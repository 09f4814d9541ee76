/** Converse stop reasons in neutral terms. */

import type { StopReason } from "../neutral.ts";

export function converseStop(reason: string | undefined): StopReason {
  switch (reason) {
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "tool_use":
      return "tool_calls";
    case "guardrail_intervened":
    case "content_filtered":
      return "content_filter";
    default:
      return "stop";
  }
}

export const CONVERSE_STOP: Record<StopReason, string> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_calls: "tool_use",
  content_filter: "content_filtered",
};
