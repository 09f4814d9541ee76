/** Token usage in one neutral shape, whatever format reported it. */

export interface TokenUsage {
  /** All input tokens, cached ones included. */
  input_tokens: number;
  /** The part of `input_tokens` read from a prompt cache. */
  cached_input_tokens: number;
  /** All output tokens, reasoning included. */
  output_tokens: number;
}

/** How a request's usage was learned: reported by the upstream, or estimated by the gateway. */
export type UsageSource = "upstream" | "estimate";
