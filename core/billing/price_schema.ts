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

/** An embedding model's price: input tokens only (an embedding has no output tokens). */
export const embeddingPriceSchema = z.strictObject({
  /** Units per million input tokens. */
  input: unitsSchema,
});

export type TextPrice = z.infer<typeof textPriceSchema>;
export type EmbeddingPrice = z.infer<typeof embeddingPriceSchema>;
export type ImagePrice = z.infer<typeof imagePriceSchema>;
