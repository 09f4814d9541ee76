/** Token usage in one neutral shape, whatever format reported it. */

export interface TokenUsage {
  /** All input tokens, cached ones included. */
  input_tokens: number;
  /** The part of `input_tokens` read from a prompt cache. */
  cached_input_tokens: number;
  /** All output tokens, reasoning included. */
  output_tokens: number;
  /** The part of `output_tokens` spent reasoning, when the upstream reported it separately. */
  reasoning_tokens?: number;
}

/** How a request's usage was learned: reported by the upstream, or estimated by the gateway. */
export type UsageSource = "upstream" | "estimate";

/** What a request could have used at most, to recognise a count that cannot be true. */
export interface UsageBounds {
  /** The most input tokens the request can be (the hold's bound). */
  maxInputTokens: number;
  /** The most output tokens it allowed (every choice). */
  maxOutputTokens: number;
  /** Characters of output the client received. */
  outputChars: number;
}

const isCount = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0;

/**
 * An upstream's usage if it can be believed, else undefined (the caller then bills the
 * gateway's estimate). Refused: anything missing or partial, floats, strings, negatives; no
 * input counted, or no output counted for an answer that delivered output; counts far beyond
 * what the request allowed (an absurd count must not drain a key).
 */
export function believableUsage(
  usage: Partial<Record<keyof TokenUsage, unknown>> | undefined,
  bounds: UsageBounds,
): TokenUsage | undefined {
  if (!usage) return undefined;
  const { input_tokens, cached_input_tokens, output_tokens } = usage;
  if (!isCount(input_tokens) || !isCount(output_tokens)) return undefined;
  const cached = cached_input_tokens ?? 0;
  if (!isCount(cached) || cached > input_tokens) return undefined;
  if (input_tokens === 0) return undefined;
  if (output_tokens === 0 && bounds.outputChars > 0) return undefined;
  if (input_tokens > bounds.maxInputTokens * 4 + 10_000) return undefined;
  if (output_tokens > bounds.maxOutputTokens * 2 + 1_000) return undefined;
  const believed: TokenUsage = { input_tokens, cached_input_tokens: cached, output_tokens };
  // Shown on the receipt only (billed as output either way): kept when it can be a part.
  const { reasoning_tokens } = usage;
  if (isCount(reasoning_tokens) && reasoning_tokens <= output_tokens) {
    believed.reasoning_tokens = reasoning_tokens;
  }
  return believed;
}

/**
 * The gateway's own estimate held to what the request allowed: a guess (the upstream reported
 * nothing believable) never bills past the bound the request was admitted with. Reported usage
 * is not held to it: the upstream billed those tokens.
 */
export function estimateWithinBounds(
  estimate: TokenUsage,
  bounds: Pick<UsageBounds, "maxInputTokens" | "maxOutputTokens">,
): TokenUsage {
  return {
    ...estimate,
    input_tokens: Math.min(estimate.input_tokens, bounds.maxInputTokens),
    output_tokens: Math.min(estimate.output_tokens, bounds.maxOutputTokens),
  };
}

/**
 * A token count as an upstream reported it: the number when it is a non-negative safe integer,
 * 0 when absent, NaN for anything else (a float, a string, a negative), so a lie is never turned
 * into a plausible number and `believableUsage` refuses it.
 */
export function reportedCount(value: unknown): number {
  if (value === undefined || value === null) return 0;
  return isCount(value) ? value : NaN;
}
