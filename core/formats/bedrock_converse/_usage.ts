/** Converse usage in neutral terms. */

import { reportedCount } from "../../billing/usage.ts";
import type { NeutralUsage } from "../neutral.ts";
import { converseUsageSchema } from "./answer_schemas.ts";

/**
 * A Converse `usage` in neutral terms; undefined when it is not an object. Bedrock counts cache
 * reads and writes apart from `inputTokens`; they are all input, the reads cached.
 */
export function converseUsage(json: unknown): NeutralUsage | undefined {
  const usage = converseUsageSchema.parse(json);
  if (!usage) return undefined;
  const cacheRead = reportedCount(usage.cacheReadInputTokens);
  const cacheWrite = reportedCount(usage.cacheWriteInputTokens);
  return {
    input_tokens: reportedCount(usage.inputTokens) + cacheRead + cacheWrite,
    cached_input_tokens: cacheRead,
    output_tokens: reportedCount(usage.outputTokens),
  };
}
