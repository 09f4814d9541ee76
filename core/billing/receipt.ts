/**
 * Receipts: what a request was billed and why, written at settle time from the same pure pricing
 * functions that made the amount (textCost, imageCost, videoBill), so the receipt's numbers
 * recompute to exactly what the ledger took. Pure.
 */

import { textCost } from "./text_price.ts";
import { embeddingCost } from "./embedding_price.ts";
import { imageCost, imageUnitPrice } from "./image_price.ts";
import { failureCost, videoBill, type VideoPrice } from "./video_price.ts";
import type {
  EmbeddingPrice,
  ImagePrice,
  ModerationPrice,
  RerankPrice,
  TextPrice,
} from "./price_schema.ts";
import { rerankCost, type RerankUsage } from "./rerank_price.ts";
import { moderationCost } from "./moderation_price.ts";
import type { TokenUsage } from "./usage.ts";
import { type PriceTier, tierFactorText, tierMultipliers } from "./price_tier.ts";
import { audioCharactersCost, audioSecondsCost, audioTokensCost } from "./audio_price.ts";

/** Units by kind; a kind a request did not use is absent. */
export interface ReceiptUnits {
  input_tokens?: number;
  cached_input_tokens?: number;
  output_tokens?: number;
  /** Part of output_tokens; null when the upstream did not report it separately. */
  reasoning_tokens?: number | null;
  images?: number;
  output_seconds?: number;
  /** Each reference video or audio, in seconds as read (billed to the millisecond). */
  reference_seconds?: number[];
  billed_seconds?: number;
  /** Rerank: the documents ranked, and the search units they make (Cohere's unit). */
  documents?: number;
  search_units?: number;
  /** Moderation: the requests billed (always 1) and the inputs they carried. */
  requests?: number;
  inputs?: number;
  /** Audio: seconds of input audio as the gateway's reader read them. */
  input_seconds?: number;
  /** Speech: characters of input text. */
  input_characters?: number;
}

/** Where the money of a request stands. */
export type ReceiptStatus = "charged" | "held" | "settled" | "refunded" | "released";

export interface Receipt {
  kind: "text" | "image" | "video" | "rerank" | "moderation" | "audio" | "embedding";
  units: ReceiptUnits;
  /** Unit prices in units (1 unit = 0.000001 of the currency). */
  prices: Record<string, number | string>;
  /**
   * Factors applied to the prices: `price_multiplier` of the caller's group when it is not ×1
   * (its name is in the formula), and a failed fixed-price video's `failure_refund_percent`;
   * `{}` when there is none. `prices` are the catalog's, before the multiplier.
   */
  multipliers: Record<string, number>;
  /** The formula with the receipt's numbers in it, and its result. */
  formula: string;
  /** What the formula gives. */
  amount: number;
  /** What the ledger took for the request (−Σ of its entries): `amount` less `shortfall`. */
  charged: number;
  /**
   * What of `amount` the key's credit floor left uncollected (0 but for a key at its floor);
   * absent on receipts written before shortfalls were recorded.
   */
  shortfall?: number;
  status: ReceiptStatus;
  /** Tasks: the amount held at submission, and what was given back when it ended. */
  held?: number;
  refunded?: number;
  /**
   * The ids of the ledger entries this request moved money in, oldest first: its hold and
   * settle, or the aggregated charge its cost is part of.
   */
  ledger_entry_ids: string[];
  /**
   * Each of those entries with the request's signed part of its amount (in an aggregated charge,
   * its share); absent on receipts written before shares were recorded.
   */
  ledger_shares?: ReceiptEntry[];
}

/** A receipt's pricing part, before any money moved. */
export type ReceiptPricing = Pick<
  Receipt,
  "kind" | "units" | "prices" | "multipliers" | "formula" | "amount"
>;

/** The pricing of text usage at a per-million-token price and the caller's price `tier`. */
export function textReceipt(
  price: TextPrice,
  usage: TokenUsage & { reasoning_tokens?: number | null },
  tier?: PriceTier,
): ReceiptPricing {
  const cached = Math.min(usage.cached_input_tokens, usage.input_tokens);
  const uncached = usage.input_tokens - cached;
  const cachedPrice = price.cached_input ?? price.input;
  const amount = textCost(price, usage, tier);
  return {
    kind: "text",
    units: {
      input_tokens: usage.input_tokens,
      cached_input_tokens: cached,
      output_tokens: usage.output_tokens,
      reasoning_tokens: usage.reasoning_tokens ?? null,
    },
    prices: { input: price.input, cached_input: cachedPrice, output: price.output },
    multipliers: tierMultipliers(tier),
    formula:
      `ceil((${uncached} uncached input × ${price.input} + ${cached} cached input × ${cachedPrice} + ${usage.output_tokens} output × ${price.output})${
        tierFactorText(tier)
      } / 1000000) = ${amount}`,
    amount,
  };
}

/** The pricing of an embedding request's `inputTokens` at the caller's price `tier`. */
export function embeddingReceipt(
  price: EmbeddingPrice,
  inputTokens: number,
  tier?: PriceTier,
): ReceiptPricing {
  const amount = embeddingCost(price, inputTokens, tier);
  return {
    kind: "embedding",
    units: { input_tokens: inputTokens },
    prices: { input: price.input },
    multipliers: tierMultipliers(tier),
    formula: `ceil(${inputTokens} input × ${price.input}${
      tierFactorText(tier)
    } / 1000000) = ${amount}`,
    amount,
  };
}

/** The pricing of `count` images of `size` and `quality` at the caller's price `tier`. */
export function imageReceipt(
  price: ImagePrice,
  job: { size: string; quality: string; count: number },
  tier?: PriceTier,
): ReceiptPricing {
  const unit = imageUnitPrice(price, job);
  const amount = imageCost(price, job, tier);
  const factor = tierFactorText(tier);
  return {
    kind: "image",
    units: { images: job.count },
    prices: { per_image: unit, tier: `${job.size}/${job.quality}` },
    multipliers: tierMultipliers(tier),
    formula: factor
      ? `ceil(${job.count} images × ${unit}${factor}) = ${amount}`
      : `${job.count} images × ${unit} = ${amount}`,
    amount,
  };
}

/**
 * The pricing of a video task of `durationSeconds` with references of `referenceSeconds` at the
 * caller's price `tier`.
 */
export function videoReceipt(
  price: VideoPrice,
  task: { durationSeconds: number; referenceSeconds: readonly number[] },
  tier?: PriceTier,
): ReceiptPricing {
  const bill = videoBill(price, task, tier);
  const factor = tierFactorText(tier);
  const units: ReceiptUnits = {
    output_seconds: task.durationSeconds,
    reference_seconds: [...task.referenceSeconds],
  };
  if ("per_task" in price) {
    return {
      kind: "video",
      units,
      prices: { per_task: price.per_task },
      multipliers: tierMultipliers(tier),
      formula: factor
        ? `ceil(${price.per_task} per task${factor}) = ${bill.amount}`
        : `${price.per_task} per task = ${bill.amount}`,
      amount: bill.amount,
    };
  }
  const billedMs = bill.billedMs!;
  const parts = [
    `${task.durationSeconds * 1000} ms output`,
    ...task.referenceSeconds.map((seconds) => `${Math.round(seconds * 1000)} ms reference`),
  ];
  return {
    kind: "video",
    units: { ...units, billed_seconds: billedMs / 1000 },
    prices: { per_second: price.per_second },
    multipliers: tierMultipliers(tier),
    formula: `ceil(${price.per_second} × (${parts.join(" + ")})${factor} / 1000) = ${bill.amount}`,
    amount: bill.amount,
  };
}

/** The pricing of `seconds` of input audio (billed to the millisecond) at `per_second`. */
export function audioSecondsReceipt(
  price: { per_second: number },
  seconds: number,
  tier?: PriceTier,
): ReceiptPricing {
  const billedMs = Math.round(seconds * 1000);
  const amount = audioSecondsCost(price, billedMs, tier);
  return {
    kind: "audio",
    units: { input_seconds: seconds, billed_seconds: billedMs / 1000 },
    prices: { per_second: price.per_second },
    multipliers: tierMultipliers(tier),
    formula: `ceil(${price.per_second} × ${billedMs} ms input audio${
      tierFactorText(tier)
    } / 1000) = ${amount}`,
    amount,
  };
}

/** The pricing of an audio request's token usage at per-million-token prices. */
export function audioTokensReceipt(
  price: { input: number; output: number },
  usage: { input_tokens: number; output_tokens: number },
  tier?: PriceTier,
): ReceiptPricing {
  const amount = audioTokensCost(price, usage, tier);
  return {
    kind: "audio",
    units: { input_tokens: usage.input_tokens, output_tokens: usage.output_tokens },
    prices: { input: price.input, output: price.output },
    multipliers: tierMultipliers(tier),
    formula:
      `ceil((${usage.input_tokens} input × ${price.input} + ${usage.output_tokens} output × ${price.output})${
        tierFactorText(tier)
      } / 1000000) = ${amount}`,
    amount,
  };
}

/** The pricing of `characters` of input text (speech) at `per_character`. */
export function audioCharactersReceipt(
  price: { per_character: number },
  characters: number,
  tier?: PriceTier,
): ReceiptPricing {
  const amount = audioCharactersCost(price, characters, tier);
  const factor = tierFactorText(tier);
  return {
    kind: "audio",
    units: { input_characters: characters },
    prices: { per_character: price.per_character },
    multipliers: tierMultipliers(tier),
    formula: factor
      ? `ceil(${characters} characters × ${price.per_character}${factor}) = ${amount}`
      : `${characters} characters × ${price.per_character} = ${amount}`,
    amount,
  };
}

/**
 * The pricing of a rerank of `documents` documents that used `usage`, at the caller's price
 * `tier`: per search unit or per million tokens, as the model's price says.
 */
export function rerankReceipt(
  price: RerankPrice,
  usage: RerankUsage & { documents: number },
  tier?: PriceTier,
): ReceiptPricing {
  const amount = rerankCost(price, usage, tier);
  const factor = tierFactorText(tier);
  const units: ReceiptUnits = {
    documents: usage.documents,
    search_units: usage.search_units,
    input_tokens: usage.tokens,
  };
  if ("per_search" in price) {
    return {
      kind: "rerank",
      units,
      prices: { per_search: price.per_search },
      multipliers: tierMultipliers(tier),
      formula: factor
        ? `ceil(${usage.search_units} search units × ${price.per_search}${factor}) = ${amount}`
        : `${usage.search_units} search units × ${price.per_search} = ${amount}`,
      amount,
    };
  }
  return {
    kind: "rerank",
    units,
    prices: { input: price.input },
    multipliers: tierMultipliers(tier),
    formula: `ceil(${usage.tokens} tokens × ${price.input}${factor} / 1000000) = ${amount}`,
    amount,
  };
}

/** The pricing of one moderation request of `inputs` inputs at the caller's price `tier`. */
export function moderationReceipt(
  price: ModerationPrice,
  request: { inputs: number },
  tier?: PriceTier,
): ReceiptPricing {
  const amount = moderationCost(price, tier);
  const factor = tierFactorText(tier);
  return {
    kind: "moderation",
    units: { requests: 1, inputs: request.inputs },
    prices: { per_request: price.per_request },
    multipliers: tierMultipliers(tier),
    formula: factor
      ? `ceil(1 request × ${price.per_request}${factor}) = ${amount}`
      : `1 request × ${price.per_request} = ${amount}`,
    amount,
  };
}

/**
 * What a ledger entry did for the request: its id and the signed amount that is the request's
 * (all of it, or, in an aggregated charge, the request's share).
 */
export interface ReceiptEntry {
  id: string;
  amount: number;
}

/** `pricing` with the money the ledger moved for it (`entries`, oldest first). */
export function receiptOf(
  pricing: ReceiptPricing,
  money: {
    entries: readonly ReceiptEntry[];
    status: ReceiptStatus;
    held?: number;
    /** What of the amount the credit floor left uncollected. */
    shortfall?: number;
  },
): Receipt {
  const charged = 0 - money.entries.reduce((sum, entry) => sum + entry.amount, 0);
  return {
    ...pricing,
    charged,
    shortfall: money.shortfall ?? 0,
    status: money.status,
    ...(money.held === undefined ? {} : { held: money.held, refunded: money.held - charged }),
    ledger_entry_ids: money.entries.map((entry) => entry.id),
    ledger_shares: money.entries.map(({ id, amount }) => ({ id, amount })),
  };
}

/**
 * A failed task's receipt: what its refund policy keeps of `held` (all of it is refunded except
 * for fixed-price models with a failure_refund_percent under 100).
 */
export function failedTaskPricing(
  pricing: ReceiptPricing,
  policy: { held: number; refundPercent: number },
): ReceiptPricing {
  const kept = failureCost(policy.held, policy.refundPercent);
  return {
    ...pricing,
    multipliers: { ...pricing.multipliers, failure_refund_percent: policy.refundPercent },
    formula:
      `${policy.held} held − floor(${policy.held} × ${policy.refundPercent}% refunded) = ${kept}`,
    amount: kept,
  };
}
