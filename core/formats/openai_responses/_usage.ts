/** Responses-API usage to and from the neutral shape, reasoning tokens included. */

import type { NeutralUsage } from "../neutral.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

export function responsesUsage(usage: Json): NeutralUsage | undefined {
  if (!usage || typeof usage !== "object") return undefined;
  const input = Math.max(0, usage.input_tokens ?? 0);
  const reasoning = usage.output_tokens_details?.reasoning_tokens;
  return {
    input_tokens: input,
    cached_input_tokens: Math.min(
      input,
      Math.max(0, usage.input_tokens_details?.cached_tokens ?? 0),
    ),
    output_tokens: Math.max(0, usage.output_tokens ?? 0),
    ...(typeof reasoning === "number" ? { reasoning_tokens: reasoning } : {}),
  };
}

export function encodeResponsesUsage(usage: NeutralUsage) {
  return {
    input_tokens: usage.input_tokens,
    input_tokens_details: { cached_tokens: usage.cached_input_tokens },
    output_tokens: usage.output_tokens,
    output_tokens_details: { reasoning_tokens: usage.reasoning_tokens ?? 0 },
    total_tokens: usage.input_tokens + usage.output_tokens,
  };
}
