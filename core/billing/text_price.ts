/** Prices to costs. Pure; money is integer units and a cost is rounded up to a whole unit. */

import type { TextPrice } from "./price_schema.ts";
import type { TokenUsage } from "./usage.ts";
import { type PriceTier, tieredCeil } from "./price_tier.ts";

const MILLION = 1_000_000n;

/**
 * The cost of `usage` at a per-million-token `price` and the caller's price `tier` (default ×1).
 * Cached input tokens are priced at `cached_input` (default `input`) and not again as input.
 * BigInt keeps tokens × price × multiplier exact; the sum is rounded up once.
 */
export function textCost(price: TextPrice, usage: TokenUsage, tier?: PriceTier): number {
  const cached = BigInt(Math.min(usage.cached_input_tokens, usage.input_tokens));
  const uncached = BigInt(usage.input_tokens) - cached;
  const total = uncached * BigInt(price.input) +
    cached * BigInt(price.cached_input ?? price.input) +
    BigInt(usage.output_tokens) * BigInt(price.output);
  return tieredCeil(total, MILLION, tier);
}
