/**
 * A model's price as the caller pays it, in words for model descriptions: the catalog price ×
 * the caller's price tier, exact (a fraction of a unit is shown as one). Pure.
 */

import type {
  AudioPrice,
  EmbeddingPrice,
  ImagePrice,
  ModerationPrice,
  RerankPrice,
  TextPrice,
} from "./price_schema.ts";
import type { VideoPrice } from "./video_price.ts";
import { isBaseTier, multiplierText, type PriceTier, tieredPriceText } from "./price_tier.ts";

/** E.g. `Price (group vip ×0.8): input 800000, cached input 400000, output 1600000 units per million tokens.` */
export function callerPriceText(
  model: {
    kind: "text" | "image" | "video" | "rerank" | "moderation" | "audio" | "embedding";
    price:
      | TextPrice
      | ImagePrice
      | VideoPrice
      | RerankPrice
      | ModerationPrice
      | AudioPrice
      | EmbeddingPrice;
  },
  tier?: PriceTier,
): string {
  const at = (units: number) => tieredPriceText(units, tier);
  const head = isBaseTier(tier)
    ? "Price"
    : `Price (group ${tier!.group} ×${multiplierText(tier!.multiplier)})`;
  const price = model.price as Record<string, unknown>;
  let body: string;
  if (model.kind === "text") {
    const text = model.price as TextPrice;
    body = `input ${at(text.input)}, cached input ${at(text.cached_input ?? text.input)}, ` +
      `output ${at(text.output)} units per million tokens`;
  } else if (model.kind === "embedding") {
    body = `input ${at((model.price as EmbeddingPrice).input)} units per million tokens`;
  } else if ("per_search" in price) {
    body = `${
      at(price.per_search as number)
    } units per search unit (a query with up to 100 documents)`;
  } else if ("per_request" in price) {
    body = `${at(price.per_request as number)} units per request`;
  } else if (model.kind === "rerank") {
    body = `input ${at(price.input as number)} units per million tokens`;
  } else if (model.kind === "audio" && "input" in price) {
    body = `input ${at(price.input as number)}, output ${
      at(price.output as number)
    } units per million tokens`;
  } else if ("per_character" in price) {
    body = `${at(price.per_character as number)} units per character`;
  } else if ("per_image" in price) {
    const image = model.price as ImagePrice;
    const tiers = Object.entries(image.tiers ?? {}).map(([name, units]) => `, ${name} ${at(units)}`)
      .join("");
    body = `${at(image.per_image)} units per image${tiers}`;
  } else if ("per_second" in price) {
    body = `${at(price.per_second as number)} units per second${
      model.kind === "audio" ? " of input audio" : ""
    }`;
  } else {
    body = `${at(price.per_task as number)} units per task`;
  }
  return `${head}: ${body}.`;
}
