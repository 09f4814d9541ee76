/** Chat-completions finish reasons in neutral terms. */

import type { StopReason } from "../neutral.ts";

export function chatStopReason(reason: string | null | undefined): StopReason {
  switch (reason) {
    case "length":
      return "length";
    case "tool_calls":
    case "function_call":
      return "tool_calls";
    case "content_filter":
      return "content_filter";
    default:
      return "stop";
  }
}
