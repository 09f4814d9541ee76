/** What images cost: per delivered image, by model and size/quality tier. Pure. */

import type { ImagePrice } from "./price_schema.ts";
import { type PriceTier, tieredCeil } from "./price_tier.ts";

export type { ImagePrice };

/**
 * Units for one image of `size` and `quality`. Tiers are looked up most specific first:
 * `size/quality`, then `size/*`, then `*\/quality`, then `per_image`.
 */
export function imageUnitPrice(
  price: ImagePrice,
  { size, quality }: { size: string; quality: string },
): number {
  const tiers = price.tiers ?? {};
  return tiers[`${size}/${quality}`] ?? tiers[`${size}/*`] ?? tiers[`*/${quality}`] ??
    price.per_image;
}

/** Units for `count` images at the caller's price `tier` (default ×1), rounded up once. */
export function imageCost(
  price: ImagePrice,
  { size, quality, count }: { size: string; quality: string; count: number },
  tier?: PriceTier,
) {
  return tieredCeil(BigInt(imageUnitPrice(price, { size, quality })) * BigInt(count), 1n, tier);
}
