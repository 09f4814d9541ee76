/**
 * The `rerank` channel type: a Cohere-, Jina- or vLLM-style rerank upstream. The channel's
 * `rerank_path` picks the path after base_url and the body: `/v1/rerank` (Jina, vLLM, Cohere v1;
 * default) or `/v2/rerank` (Cohere v2). Both get `{model, query, documents: string[], top_n?}`
 * with a Bearer key; documents sent as `{text}` were made strings by the gateway, and
 * `return_documents` is never sent (the gateway adds the documents to its answer itself).
 */

import { UpstreamAttemptError } from "../upstream/attempt.ts";
import { isTokenCount, type Provider, type RerankAnswer, type RerankCall } from "./provider.ts";
import { bearerJson } from "./provider.ts";
import { OPENAI_ERRORS } from "./openai_errors.ts";
import { rerankAnswerSchema, rerankErrorSchema } from "./rerank_schemas.ts";
import { readLenient } from "../util/lenient_schema.ts";
import type { ErrorDialect } from "../upstream/error_reader.ts";

/** Cohere's `{message}`, vLLM's OpenAI-style `{error: {message}}`, Jina's `{detail}`. */
const RERANK_ERRORS: ErrorDialect = {
  read(body) {
    const openai = OPENAI_ERRORS.read(body);
    if (openai.message !== undefined) return openai;
    const { detail } = readLenient(rerankErrorSchema, body);
    return { message: typeof detail === "string" ? detail : JSON.stringify(detail) };
  },
};

function badAnswer(message: string): UpstreamAttemptError {
  return new UpstreamAttemptError(`bad_answer: ${message}`, {
    retryable: true,
    errorClass: "bad_answer",
  });
}

/** Reads a rerank answer to `call`: every result's index must name one of its documents, once. */
export function readRerankAnswer(text: string, call: RerankCall): RerankAnswer {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw badAnswer("the upstream's rerank answer is not JSON");
  }
  const answer = readLenient(rerankAnswerSchema, json);
  if (answer.results.length === 0) throw badAnswer("the upstream's rerank answer has no results");
  const seen = new Set<number>();
  for (const result of answer.results) {
    if (result.index >= call.documents.length || seen.has(result.index)) {
      throw badAnswer(`the upstream's rerank answer has a wrong index ${result.index}`);
    }
    seen.add(result.index);
  }
  const tokens = answer.usage?.total_tokens;
  const searchUnits = answer.meta?.billed_units?.search_units;
  return {
    results: answer.results.map(({ index, relevance_score }) => ({ index, relevance_score })),
    ...(isTokenCount(tokens) ? { tokens } : {}),
    ...(isTokenCount(searchUnits) ? { searchUnits } : {}),
  };
}

export const rerankProvider: Provider = {
  kinds: ["rerank"],
  baseUrlExample: "https://api.jina.ai",
  appendedPaths: /\/(v[12](\/rerank)?|rerank)$/,
  errors: RERANK_ERRORS,
  keyless: true,
  rerank: {
    request: ({ channel, apiKey, model }, call) =>
      Promise.resolve({
        url: `${channel.base_url}${channel.rerank_path ?? "/v1/rerank"}`,
        init: {
          method: "POST",
          headers: bearerJson(apiKey),
          body: JSON.stringify({
            model,
            query: call.query,
            documents: call.documents,
            ...(call.topN === undefined ? {} : { top_n: call.topN }),
          }),
        },
      }),
    read: readRerankAnswer,
  },
};
