/** What embeddings cost: per million input tokens, at the caller's price tier. Pure. */

import type { EmbeddingPrice } from "./price_schema.ts";
import { type PriceTier, tieredCeil } from "./price_tier.ts";

export type { EmbeddingPrice };

/** Units for `inputTokens` at `price` and `tier` (default ×1), rounded up once. */
export function embeddingCost(
  price: EmbeddingPrice,
  inputTokens: number,
  tier?: PriceTier,
): number {
  return tieredCeil(BigInt(inputTokens) * BigInt(price.input), 1_000_000n, tier);
}
