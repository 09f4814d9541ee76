/**
 * A rerank request in the Cohere/Jina shape that Dify, FastGPT and vLLM send: `model`, `query`,
 * `documents` (strings or `{text}`), `top_n`, `return_documents`. Other fields are ignored and
 * named in `x-gateway-ignored-fields`.
 */

import { z } from "zod";

/** The most documents one request may rank (Cohere's and Jina's limit). */
export const MAX_RERANK_DOCUMENTS = 1000;

const document = z.union([
  z.string(),
  z.looseObject({ text: z.string() }).transform((value) => value.text),
], { error: "each document must be a string or an object with a string 'text'" });

export const rerankRequestSchema = z.object({
  model: z.string({ error: "model is required" }).min(1, "model must not be empty"),
  query: z.string({
    error: (issue) => issue.input === undefined ? "query is required" : "query must be a string",
  }).min(1, "query must not be empty"),
  documents: z.array(document, {
    error: (issue) =>
      issue.input === undefined ? "documents is required" : "documents must be an array",
  }).min(1, "documents must not be empty").max(
    MAX_RERANK_DOCUMENTS,
    `documents may hold at most ${MAX_RERANK_DOCUMENTS.toLocaleString("en")} documents`,
  ),
  top_n: z.int({ error: "top_n must be an integer" }).min(1, "top_n must be at least 1").optional(),
  return_documents: z.boolean({ error: "return_documents must be true or false" }).default(false),
});

export type RerankRequest = z.infer<typeof rerankRequestSchema>;

/** Fields a rerank request may carry that the gateway reads. */
export const KNOWN_RERANK_FIELDS = new Set(Object.keys(rerankRequestSchema.shape));
