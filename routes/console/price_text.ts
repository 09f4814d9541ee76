/** A model's price in words, for the operator's and the members' model pages. */

import type { CatalogModel } from "../../core/channels/catalog.ts";
import type { PriceTier } from "../../core/billing/price_tier.ts";
import { formatTieredUnits } from "./snippets.ts";

/**
 * A model's price in words, in currency (units shown as 1.000000 = 1,000,000 units), at price
 * tier `tier` (default: the catalog price, ×1).
 */
export function priceText(model: CatalogModel, tier?: PriceTier): string {
  const money = (units: number) => formatTieredUnits(units, tier);
  const price = model.price as Record<string, unknown>;
  if (model.kind === "text") {
    const cached = price.cached_input ?? price.input;
    return `input ${money(price.input as number)}, cached ${money(cached as number)}, output ${
      money(price.output as number)
    } per million tokens`;
  }
  if (model.kind === "embedding") return `input ${money(price.input as number)} per million tokens`;
  if ("per_image" in price) {
    const tiers = Object.entries((price.tiers ?? {}) as Record<string, number>)
      .map(([tier, units]) => `; ${tier} ${money(units)}`).join("");
    return `${money(price.per_image as number)} per image${tiers}`;
  }
  if ("per_second" in price) return `${money(price.per_second as number)} per second`;
  return `${money(price.per_task as number)} per task`;
}
