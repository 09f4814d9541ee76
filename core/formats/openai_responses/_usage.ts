/** Responses-API usage to and from the neutral shape, reasoning tokens included. */

import { reportedCount } from "../../billing/usage.ts";
import type { NeutralUsage } from "../neutral.ts";
import { responsesUsageSchema } from "./answer_schemas.ts";

/** An upstream's `usage` in neutral terms; undefined when it is not an object. */
export function responsesUsage(json: unknown): NeutralUsage | undefined {
  const usage = responsesUsageSchema.parse(json);
  if (!usage) return undefined;
  const input = reportedCount(usage.input_tokens);
  const reasoning = usage.output_tokens_details?.reasoning_tokens;
  return {
    input_tokens: input,
    cached_input_tokens: Math.min(
      input,
      reportedCount(usage.input_tokens_details?.cached_tokens),
    ),
    output_tokens: reportedCount(usage.output_tokens),
    ...(typeof reasoning === "number" ? { reasoning_tokens: reasoning } : {}),
  };
}

export function encodeResponsesUsage(usage: NeutralUsage) {
  return {
    input_tokens: usage.input_tokens,
    // Cache writes are billed as input here (as the Anthropic encoder reports them): none apart.
    input_tokens_details: { cached_tokens: usage.cached_input_tokens, cache_write_tokens: 0 },
    output_tokens: usage.output_tokens,
    output_tokens_details: { reasoning_tokens: usage.reasoning_tokens ?? 0 },
    total_tokens: usage.input_tokens + usage.output_tokens,
  };
}
