/**
 * Rerank answers as Cohere (v1, v2), Jina and vLLM write them, read leniently: `results` of
 * `{index, relevance_score}`, Jina's and vLLM's `usage.total_tokens`, Cohere's
 * `meta.billed_units.search_units`. Counts stay unknown until judged.
 */

import { z } from "zod";
import { listOf, optionalObject, unknownField } from "../util/lenient_schema.ts";

const resultSchema = z.looseObject({
  index: z.int().nonnegative(),
  relevance_score: z.number(),
});

export const rerankAnswerSchema = z.looseObject({
  results: listOf(resultSchema),
  usage: optionalObject({ total_tokens: unknownField }),
  meta: optionalObject({
    billed_units: optionalObject({ search_units: unknownField }),
  }),
});

/** Jina's error answer: `{detail}`, a string or FastAPI's list of problems. */
export const rerankErrorSchema = z.looseObject({ detail: unknownField });
