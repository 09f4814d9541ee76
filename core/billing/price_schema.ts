/** Prices as the catalog stores them: integer units (1 unit = 0.000001 of the currency). */

import { z } from "zod";

/** Money: an integer count of units (1 unit = 0.000001 of the currency). */
export const unitsSchema = z.int().nonnegative();

export const textPriceSchema = z.strictObject({
  /** Units per million input tokens. */
  input: unitsSchema,
  /** Units per million output tokens. */
  output: unitsSchema,
  /** Units per million cached input tokens; defaults to `input`. */
  cached_input: unitsSchema.optional(),
});

export const imagePriceSchema = z.strictObject({
  /** Units per delivered image. */
  per_image: unitsSchema,
  /** Overrides per `size/quality`, `size/*` or `*\/quality` tier, e.g. `"2048x2048/high"`. */
  tiers: z.record(z.string(), unitsSchema).optional(),
});

export const videoPriceSchema = z.union([
  z.strictObject({ per_second: unitsSchema }),
  z.strictObject({
    per_task: unitsSchema,
    /** Percent of the price given back when a fixed-price task fails (default 100). */
    failure_refund_percent: z.int().min(0).max(100).optional(),
  }),
]);

/**
 * An `audio` model's price (transcriptions, translations and speech share the kind): per second
 * of input audio, per million tokens of the upstream's usage, or per character of input text
 * (speech). Which one a model has is its price unit; core/billing/audio_price.ts prices each.
 */
export const audioPriceSchema = z.union([
  z.strictObject({
    /** Units per second of input audio, as the gateway's duration reader reads it. */
    per_second: unitsSchema,
  }),
  z.strictObject({
    /** Units per million input tokens (audio and prompt text), from the upstream's usage. */
    input: unitsSchema,
    /** Units per million output tokens (the transcript), from the upstream's usage. */
    output: unitsSchema,
  }),
  z.strictObject({
    /** Units per character of input text (speech). */
    per_character: unitsSchema,
  }),
]);

/** An embedding model's price: input tokens only (an embedding has no output tokens). */
export const embeddingPriceSchema = z.strictObject({
  /** Units per million input tokens. */
  input: unitsSchema,
});

export type TextPrice = z.infer<typeof textPriceSchema>;
export type AudioPrice = z.infer<typeof audioPriceSchema>;
export type EmbeddingPrice = z.infer<typeof embeddingPriceSchema>;
export type ImagePrice = z.infer<typeof imagePriceSchema>;

/**
 * A rerank model's price: per search unit (Cohere's billing: one query with up to 100
 * documents is one unit), or per million tokens of the upstream's reported usage (Jina, vLLM).
 */
export const rerankPriceSchema = z.union([
  z.strictObject({
    /** Units per search unit. */
    per_search: unitsSchema,
  }),
  z.strictObject({
    /** Units per million tokens (query and documents, as the upstream counts them). */
    input: unitsSchema,
  }),
]);

/** A moderation model's price: units per request (0, free, is the default). */
export const moderationPriceSchema = z.strictObject({
  /** Units per moderation request, whatever its number of inputs. */
  per_request: unitsSchema,
});

export type RerankPrice = z.infer<typeof rerankPriceSchema>;
export type ModerationPrice = z.infer<typeof moderationPriceSchema>;
