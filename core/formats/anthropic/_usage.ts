/** Messages-API usage to and from the neutral shape. */

import { reportedCount } from "../../billing/usage.ts";
import type { NeutralUsage } from "../neutral.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Anthropic counts cache reads and writes apart from `input_tokens`; they are all input. */
export function anthropicUsage(usage: Json): NeutralUsage | undefined {
  if (!usage || typeof usage !== "object") return undefined;
  const cacheRead = reportedCount(usage.cache_read_input_tokens);
  const cacheWrite = reportedCount(usage.cache_creation_input_tokens);
  return {
    input_tokens: reportedCount(usage.input_tokens) + cacheRead + cacheWrite,
    cached_input_tokens: cacheRead,
    output_tokens: reportedCount(usage.output_tokens),
  };
}

export function encodeAnthropicUsage(usage: NeutralUsage) {
  return {
    input_tokens: usage.input_tokens - usage.cached_input_tokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: usage.cached_input_tokens,
    output_tokens: usage.output_tokens,
  };
}
