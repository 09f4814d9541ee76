/** Reads OpenAI chat-completions usage into the neutral shape. */

import { reportedCount, type TokenUsage } from "../../billing/usage.ts";

import type { OpenAIChatUsage } from "./answer_schemas.ts";

/** Upstream usage as OpenAI-compatible providers send it (answer_schemas.ts); any field may be missing. */
export type { OpenAIChatUsage };

/** Converts OpenAI usage; cached tokens are a part of prompt_tokens, so they are not added. */
export function convertOpenAIChatUsage(usage: OpenAIChatUsage): TokenUsage {
  const input = reportedCount(usage.prompt_tokens);
  return {
    input_tokens: input,
    cached_input_tokens: Math.min(
      input,
      reportedCount(usage.prompt_tokens_details?.cached_tokens),
    ),
    output_tokens: reportedCount(usage.completion_tokens),
    ...(typeof usage.completion_tokens_details?.reasoning_tokens === "number"
      ? { reasoning_tokens: usage.completion_tokens_details.reasoning_tokens }
      : {}),
  };
}
