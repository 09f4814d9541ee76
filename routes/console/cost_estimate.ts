/**
 * The Models page's "what would this cost": a catalog model and the calculator's fields, priced
 * by the billing code's own pure receipt functions, so the estimate is what a request would be
 * billed. Pure.
 */

import type { CatalogModel } from "../../core/channels/catalog.ts";
import type {
  AudioPrice,
  EmbeddingPrice,
  ImagePrice,
  ModerationPrice,
  RerankPrice,
  TextPrice,
} from "../../core/billing/price_schema.ts";
import {
  audioCharactersReceipt,
  audioSecondsReceipt,
  audioTokensReceipt,
  embeddingReceipt,
  imageReceipt,
  moderationReceipt,
  type ReceiptPricing,
  rerankReceipt,
  textReceipt,
  videoReceipt,
} from "../../core/billing/receipt.ts";
import { searchUnitsOf } from "../../core/billing/rerank_price.ts";
import type { VideoPrice } from "../../core/billing/video_price.ts";
import type { PriceTier } from "../../core/billing/price_tier.ts";

/** The most of any one quantity the calculator takes. */
const MOST = 1_000_000_000;

export type CostEstimate = { pricing: ReceiptPricing } | { problem: string };

/** A whole number of 0..MOST from `fields[name]`, 0 when empty; a problem message otherwise. */
function countOf(fields: Record<string, string>, name: string, label: string): number | string {
  const text = (fields[name] ?? "").trim();
  if (text === "") return 0;
  if (!/^\d+$/.test(text) || Number(text) > MOST) {
    return `${label} must be a whole number from 0 to ${MOST}, not '${text.slice(0, 40)}'`;
  }
  return Number(text);
}

/** The calculator's fields of an audio model, by its price unit. */
function audioLabels(price: AudioPrice): Record<string, string> {
  if ("per_second" in price) return { seconds: "Seconds" };
  if ("per_character" in price) return { characters: "Characters" };
  return { input_tokens: "Input tokens", output_tokens: "Output tokens" };
}

/** What an audio model would bill for `counts`, by its price unit. */
function audioEstimate(
  price: AudioPrice,
  counts: Record<string, number>,
  tier?: PriceTier,
): CostEstimate {
  if ("per_second" in price) return { pricing: audioSecondsReceipt(price, counts.seconds, tier) };
  if ("per_character" in price) {
    return { pricing: audioCharactersReceipt(price, counts.characters, tier) };
  }
  return {
    pricing: audioTokensReceipt(price, {
      input_tokens: counts.input_tokens,
      output_tokens: counts.output_tokens,
    }, tier),
  };
}

/** What `model` would bill for the quantities in `fields`, at price `tier` (default ×1). */
export function costEstimate(
  model: CatalogModel,
  fields: Record<string, string>,
  tier?: PriceTier,
): CostEstimate {
  const counts: Record<string, number> = {};
  const labels: Record<string, string> = model.kind === "text"
    ? {
      input_tokens: "Input tokens",
      cached_input_tokens: "Cached tokens",
      output_tokens: "Output tokens",
    }
    : model.kind === "embedding"
    ? { input_tokens: "Input tokens" }
    : model.kind === "image"
    ? { images: "Images" }
    : model.kind === "rerank"
    ? { documents: "Documents", input_tokens: "Input tokens" }
    : model.kind === "moderation"
    ? {}
    : model.kind === "audio"
    ? audioLabels(model.price as AudioPrice)
    : { seconds: "Seconds" };
  for (const [name, label] of Object.entries(labels)) {
    const count = countOf(fields, name, label);
    if (typeof count === "string") return { problem: count };
    counts[name] = count;
  }
  if (model.kind === "text") {
    if (counts.cached_input_tokens > counts.input_tokens) {
      return { problem: "Cached tokens are part of the input tokens: at most as many" };
    }
    return {
      pricing: textReceipt(model.price as TextPrice, {
        input_tokens: counts.input_tokens,
        cached_input_tokens: counts.cached_input_tokens,
        output_tokens: counts.output_tokens,
      }, tier),
    };
  }
  if (model.kind === "audio") return audioEstimate(model.price as AudioPrice, counts, tier);
  if (model.kind === "embedding") {
    return {
      pricing: embeddingReceipt(model.price as EmbeddingPrice, counts.input_tokens, tier),
    };
  }
  if (model.kind === "image") {
    return {
      pricing: imageReceipt(model.price as ImagePrice, {
        size: (fields.size ?? "").trim() || "*",
        quality: (fields.quality ?? "").trim() || "*",
        count: counts.images,
      }, tier),
    };
  }
  if (model.kind === "rerank") {
    // One query over `documents` documents; a per-token model bills the tokens given.
    return {
      pricing: rerankReceipt(model.price as RerankPrice, {
        documents: counts.documents,
        search_units: searchUnitsOf(counts.documents),
        tokens: counts.input_tokens,
      }, tier),
    };
  }
  if (model.kind === "moderation") {
    return { pricing: moderationReceipt(model.price as ModerationPrice, { inputs: 1 }, tier) };
  }
  return {
    pricing: videoReceipt(model.price as VideoPrice, {
      durationSeconds: counts.seconds,
      referenceSeconds: [],
    }, tier),
  };
}
