/** Generate-content usage metadata to and from the neutral shape. */

import { reportedCount } from "../../billing/usage.ts";
import type { NeutralUsage } from "../neutral.ts";
import { geminiUsageSchema } from "./answer_schemas.ts";

/**
 * An upstream's `usageMetadata` in neutral terms; undefined when it is not an object.
 * `promptTokenCount` includes cached tokens; thoughts are output next to candidates.
 */
export function geminiUsage(json: unknown): NeutralUsage | undefined {
  const usage = geminiUsageSchema.parse(json);
  if (!usage) return undefined;
  const input = reportedCount(usage.promptTokenCount) +
    reportedCount(usage.toolUsePromptTokenCount);
  const thoughts = reportedCount(usage.thoughtsTokenCount);
  return {
    input_tokens: input,
    cached_input_tokens: Math.min(input, reportedCount(usage.cachedContentTokenCount)),
    output_tokens: reportedCount(usage.candidatesTokenCount) + thoughts,
    ...(usage.thoughtsTokenCount !== undefined ? { reasoning_tokens: thoughts } : {}),
  };
}

export function encodeGeminiUsage(usage: NeutralUsage) {
  const thoughts = usage.reasoning_tokens ?? 0;
  return {
    promptTokenCount: usage.input_tokens,
    candidatesTokenCount: usage.output_tokens - thoughts,
    totalTokenCount: usage.input_tokens + usage.output_tokens,
    ...(usage.cached_input_tokens ? { cachedContentTokenCount: usage.cached_input_tokens } : {}),
    ...(thoughts ? { thoughtsTokenCount: thoughts } : {}),
  };
}
