/** Chat-completions usage to and from the neutral shape, reasoning tokens included. */

import type { NeutralUsage } from "../neutral.ts";
import { convertOpenAIChatUsage } from "./convert_usage.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

export function chatUsage(usage: Json): NeutralUsage | undefined {
  if (!usage || typeof usage !== "object") return undefined;
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
