/**
 * What a rerank costs: per search unit (Cohere's unit: one query with up to 100 documents), or
 * per million tokens the upstream reports. Pure.
 */

import type { RerankPrice } from "./price_schema.ts";
import { type PriceTier, tieredCeil } from "./price_tier.ts";

export type { RerankPrice };

/** Documents one search unit covers (Cohere bills a query with up to 100 documents as one). */
export const DOCUMENTS_PER_SEARCH_UNIT = 100;

/** The search units of one query over `documents` documents: ceil(documents / 100), at least 1. */
export function searchUnitsOf(documents: number): number {
  return Math.max(1, Math.ceil(documents / DOCUMENTS_PER_SEARCH_UNIT));
}

/** What a rerank used: its search units and, when counted, its tokens. */
export interface RerankUsage {
  search_units: number;
  tokens: number;
}

/** The cost of `usage` at `price` and the caller's price `tier`, rounded up once. */
export function rerankCost(price: RerankPrice, usage: RerankUsage, tier?: PriceTier): number {
  if ("per_search" in price) {
    return tieredCeil(BigInt(price.per_search) * BigInt(usage.search_units), 1n, tier);
  }
  return tieredCeil(BigInt(price.input) * BigInt(usage.tokens), 1_000_000n, tier);
}
