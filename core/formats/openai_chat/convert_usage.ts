/** Reads OpenAI chat-completions usage into the neutral shape. */

import type { TokenUsage } from "../../billing/usage.ts";

/** Upstream usage as OpenAI-compatible providers send it; every field may be missing. */
export interface OpenAIChatUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  total_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
}

/** Converts OpenAI usage; cached tokens are a part of prompt_tokens, so they are not added. */
export function convertOpenAIChatUsage(usage: OpenAIChatUsage): TokenUsage {
  const input = Math.max(0, usage.prompt_tokens ?? 0);
  return {
    input_tokens: input,
    cached_input_tokens: Math.min(
      input,
      Math.max(0, usage.prompt_tokens_details?.cached_tokens ?? 0),
    ),
    output_tokens: Math.max(0, usage.completion_tokens ?? 0),
  };
}
