/** What a moderation request costs: its model's `per_request` price (0 by default). Pure. */

import type { ModerationPrice } from "./price_schema.ts";
import { type PriceTier, tieredCeil } from "./price_tier.ts";

export type { ModerationPrice };

/** The cost of one moderation request at `price` and the caller's price `tier`. */
export function moderationCost(price: ModerationPrice, tier?: PriceTier): number {
  return tieredCeil(BigInt(price.per_request), 1n, tier);
}
