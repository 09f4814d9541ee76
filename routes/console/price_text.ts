/** A model's price in words, for the operator's and the members' model pages. */

import type { CatalogModel } from "../../core/channels/catalog.ts";
import type { PriceTier } from "../../core/billing/price_tier.ts";
import type { ConsoleMoney } from "./money.tsx";

/**
 * A model's price in words, in the operator's currency (exact, never rounded), at price tier
 * `tier` (default: the catalog price, ×1).
 */
export function priceText(model: CatalogModel, currency: ConsoleMoney, tier?: PriceTier): string {
  const money = (units: number) => currency.price(units, tier);
  const price = model.price as Record<string, unknown>;
  if (model.kind === "text") {
    const cached = price.cached_input ?? price.input;
    return `input ${money(price.input as number)}, cached ${money(cached as number)}, output ${
      money(price.output as number)
    } per million tokens`;
  }
  if (model.kind === "embedding") return `input ${money(price.input as number)} per million tokens`;
  if (model.kind === "audio" && "input" in price) {
    return `input ${money(price.input as number)}, output ${
      money(price.output as number)
    } per million tokens`;
  }
  if ("per_character" in price) return `${money(price.per_character as number)} per character`;
  if ("per_image" in price) {
    const tiers = Object.entries((price.tiers ?? {}) as Record<string, number>)
      .map(([tier, units]) => `; ${tier} ${money(units)}`).join("");
    return `${money(price.per_image as number)} per image${tiers}`;
  }
  if ("per_search" in price) {
    return `${
      money(price.per_search as number)
    } per search unit (a query with up to 100 documents)`;
  }
  if ("per_request" in price) return `${money(price.per_request as number)} per request`;
  if (model.kind === "rerank") return `${money(price.input as number)} per million tokens`;
  if ("per_second" in price) {
    return `${money(price.per_second as number)} per second${
      model.kind === "audio" ? " of input audio" : ""
    }`;
  }
  return `${money(price.per_task as number)} per task`;
}
