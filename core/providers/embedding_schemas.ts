/** What the embedding upstreams answer: usage by lenient schemas (core/util/lenient_schema.ts). */

import { z } from "zod";
import { optionalObject, unknownField } from "../util/lenient_schema.ts";

/**
 * The usage of OpenAI's `{data:[{index, embedding}], usage:{prompt_tokens}}` (its vectors are
 * read by hand, core/providers/openai_embeddings.ts).
 */
export const openAIEmbeddingsUsageSchema = z.looseObject({
  usage: optionalObject({ prompt_tokens: unknownField }),
});

/**
 * The usage of Gemini's `{embeddings:[{values}]}` (batchEmbedContents), when it sends any (its
 * vectors are read by hand, core/providers/gemini_embeddings.ts).
 */
export const geminiEmbedUsageSchema = z.looseObject({
  usageMetadata: optionalObject({ promptTokenCount: unknownField }),
});

/**
 * Whether `value` is a list of numbers. A plain loop, not a schema: a vector is thousands of
 * numbers on every answer, and a schema's per-element checks cost several times the JSON parse.
 */
export function isNumberList(value: unknown): value is number[] {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) if (typeof value[i] !== "number") return false;
  return true;
}
