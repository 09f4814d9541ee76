/** Generate-content finish reasons to and from neutral terms. */

import type { StopReason } from "../neutral.ts";

const FILTERED = new Set([
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY",
]);

export function geminiStop(reason: string | undefined): StopReason {
  if (reason === "MAX_TOKENS") return "length";
  if (reason && FILTERED.has(reason)) return "content_filter";
  return "stop";
}

export const GEMINI_FINISH: Record<StopReason, string> = {
  stop: "STOP",
  tool_calls: "STOP",
  length: "MAX_TOKENS",
  content_filter: "SAFETY",
};
