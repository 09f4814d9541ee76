/** Chat-completions usage to and from the neutral shape, reasoning tokens included. */

import type { NeutralUsage } from "../neutral.ts";
import { convertOpenAIChatUsage } from "./convert_usage.ts";
import { openAIChatUsageSchema } from "./answer_schemas.ts";

/** An upstream's `usage` in neutral terms; undefined when it is not an object. */
export function chatUsage(json: unknown): NeutralUsage | undefined {
  const usage = openAIChatUsageSchema.parse(json);
  if (!usage) return undefined;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  return {
    ...convertOpenAIChatUsage(usage),
    ...(typeof reasoning === "number" ? { reasoning_tokens: reasoning } : {}),
  };
}

export function encodeChatUsage(usage: NeutralUsage) {
  return {
    prompt_tokens: usage.input_tokens,
    completion_tokens: usage.output_tokens,
    total_tokens: usage.input_tokens + usage.output_tokens,
    prompt_tokens_details: { cached_tokens: usage.cached_input_tokens },
    completion_tokens_details: { reasoning_tokens: usage.reasoning_tokens ?? 0 },
  };
}
