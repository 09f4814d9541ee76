/** Messages-API usage to and from the neutral shape. */

import type { NeutralUsage } from "../neutral.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Anthropic counts cache reads and writes apart from `input_tokens`; they are all input. */
export function anthropicUsage(usage: Json): NeutralUsage | undefined {
  if (!usage || typeof usage !== "object") return undefined;
  const cacheRead = Math.max(0, usage.cache_read_input_tokens ?? 0);
  const cacheWrite = Math.max(0, usage.cache_creation_input_tokens ?? 0);
  return {
    input_tokens: Math.max(0, usage.input_tokens ?? 0) + cacheRead + cacheWrite,
    cached_input_tokens: cacheRead,
    output_tokens: Math.max(0, usage.output_tokens ?? 0),
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
