/** Lenient schemas of the embedding upstreams' answers (core/util/lenient_schema.ts). */

import { z } from "zod";
import { listOf, optionalObject, unknownField } from "../util/lenient_schema.ts";

/** OpenAI's `{data:[{index, embedding}], usage:{prompt_tokens}}`. */
export const openAIEmbeddingsAnswerSchema = z.looseObject({
  data: listOf(z.looseObject({
    index: z.unknown().optional(),
    /** Numbers, or a base64 string when asked for base64. */
    embedding: z.union([z.array(z.number()), z.string()]),
  })),
  usage: optionalObject({ prompt_tokens: unknownField }),
});

/** Gemini's `{embeddings:[{values}]}` (batchEmbedContents), with usage when it sends any. */
export const geminiBatchEmbedAnswerSchema = z.looseObject({
  embeddings: listOf(z.looseObject({ values: z.array(z.number()) })),
  usageMetadata: optionalObject({ promptTokenCount: unknownField }),
});
