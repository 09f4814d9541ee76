/** Prices to costs. Pure; money is integer units and a cost is rounded up to a whole unit. */

import type { TextPrice } from "./price_schema.ts";
import type { TokenUsage } from "./usage.ts";

const MILLION = 1_000_000n;

function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator;
}

/**
 * The cost of `usage` at a per-million-token `price`. Cached input tokens are priced at
 * `cached_input` (default `input`) and not again as input. BigInt keeps tokens × price exact.
 */
export function textCost(price: TextPrice, usage: TokenUsage): number {
  const cached = BigInt(Math.min(usage.cached_input_tokens, usage.input_tokens));
  const uncached = BigInt(usage.input_tokens) - cached;
  const total = uncached * BigInt(price.input) +
    cached * BigInt(price.cached_input ?? price.input) +
    BigInt(usage.output_tokens) * BigInt(price.output);
  return Number(ceilDiv(total, MILLION));
}
