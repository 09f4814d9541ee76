/** Messages-API usage to and from the neutral shape. */

import { reportedCount } from "../../billing/usage.ts";
import type { NeutralUsage } from "../neutral.ts";
import { anthropicUsageSchema } from "./answer_schemas.ts";

/**
 * An upstream's `usage` in neutral terms; undefined when it is not an object. Anthropic counts
 * cache reads and writes apart from `input_tokens`; they are all input.
 */
export function anthropicUsage(json: unknown): NeutralUsage | undefined {
  const usage = anthropicUsageSchema.parse(json);
  if (!usage) return undefined;
  const cacheRead = reportedCount(usage.cache_read_input_tokens);
  const cacheWrite = reportedCount(usage.cache_creation_input_tokens);
  return {
    input_tokens: reportedCount(usage.input_tokens) + cacheRead + cacheWrite,
    cached_input_tokens: cacheRead,
    output_tokens: reportedCount(usage.output_tokens),
  };
}

/**
 * A converted answer's `usage`, every field of the SDK's `Usage` (which marks none optional). The
 * other channel types write no cache entries, so the writes are 0; they run at the standard tier,
 * as the gateway asks none other of them; what they do not tell is null.
 */
export function encodeAnthropicUsage(usage: NeutralUsage) {
  return {
    input_tokens: usage.input_tokens - usage.cached_input_tokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: usage.cached_input_tokens,
    cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
    output_tokens: usage.output_tokens,
    output_tokens_details: outputTokensDetails(usage),
    server_tool_use: null,
    service_tier: "standard",
    inference_geo: null,
    speed: null,
  };
}

/** The cumulative `usage` of a converted stream's `message_delta` (the SDK's `MessageDeltaUsage`). */
export function encodeAnthropicDeltaUsage(usage: NeutralUsage) {
  return {
    input_tokens: usage.input_tokens - usage.cached_input_tokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: usage.cached_input_tokens,
    output_tokens: usage.output_tokens,
    output_tokens_details: outputTokensDetails(usage),
    server_tool_use: null,
  };
}

function outputTokensDetails(usage: NeutralUsage) {
  return usage.reasoning_tokens === undefined ? null : { thinking_tokens: usage.reasoning_tokens };
}
