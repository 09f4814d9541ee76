/**
 * Embeddings on `gemini` channels, converted: every input becomes one request of a
 * `batchEmbedContents` call (at most 100 a call, as the API allows; more inputs make several
 * calls), `dimensions` becomes `outputDimensionality`. Gemini answers numbers only: base64 is made
 * by the gateway. Token-id inputs cannot be sent (the channel is not chosen for them).
 */

import type { EmbeddingJob } from "../jobs/embedding_job.ts";
import { UpstreamAttemptError } from "../upstream/attempt.ts";
import type { UpstreamRequest } from "../upstream/call.ts";
import { readLenient } from "../util/lenient_schema.ts";
import { geminiEmbedUsageSchema, isNumberList } from "./embedding_schemas.ts";
import type { EmbeddingProvider, UpstreamTarget } from "./provider.ts";

/** The most requests one batchEmbedContents call takes. */
export const GEMINI_EMBED_BATCH = 100;

/** The batchEmbedContents calls of `job` on `target`, in input order. */
export function geminiEmbedRequests(
  { channel, apiKey, model }: UpstreamTarget,
  job: EmbeddingJob,
): Array<UpstreamRequest & { inputs: number }> {
  const requests = job.inputs.map((input, index) => ({
    model: `models/${model}`,
    content: { parts: [{ text: String(input) }] },
    ...(job.taskType !== undefined ? { taskType: job.taskType } : {}),
    ...(job.titles?.[index] !== undefined ? { title: job.titles[index] } : {}),
    ...(job.dimensions !== undefined ? { outputDimensionality: job.dimensions } : {}),
  }));
  const calls: Array<UpstreamRequest & { inputs: number }> = [];
  for (let start = 0; start < requests.length; start += GEMINI_EMBED_BATCH) {
    const batch = requests.slice(start, start + GEMINI_EMBED_BATCH);
    calls.push({
      inputs: batch.length,
      url: `${channel.base_url}/v1beta/models/${encodeURIComponent(model)}:batchEmbedContents`,
      init: {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          "x-goog-api-key": apiKey,
        },
        body: JSON.stringify({ requests: batch }),
      },
    });
  }
  return calls;
}

/** The vectors of one batchEmbedContents answer (`expected` of them). */
export function readGeminiEmbeddings(text: string, expected: number) {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UpstreamAttemptError("The upstream answered with invalid JSON", { retryable: true });
  }
  const answer = json as { embeddings?: unknown } | null;
  const embeddings = answer !== null && typeof answer === "object" &&
      Array.isArray(answer.embeddings)
    ? answer.embeddings as Array<{ values?: unknown } | null>
    : [];
  const vectors = embeddings.map((embedding) =>
    embedding !== null && typeof embedding === "object" && isNumberList(embedding.values)
      ? embedding.values
      : undefined
  );
  if (vectors.length !== expected || vectors.some((vector) => vector === undefined)) {
    throw new UpstreamAttemptError(
      `The upstream answered ${vectors.length} embeddings for ${expected} inputs`,
      { retryable: true },
    );
  }
  return {
    vectors: vectors as number[][],
    inputTokens: readLenient(geminiEmbedUsageSchema, answer).usageMetadata?.promptTokenCount,
  };
}

export const geminiEmbeddingProvider: EmbeddingProvider = {
  takesTokens: false,
  requests: (target, { job }) => Promise.resolve(geminiEmbedRequests(target, job)),
  read: (answer, expected) => readGeminiEmbeddings(new TextDecoder().decode(answer), expected),
  ignoredFields: (job) => job.user !== undefined ? ["user"] : [],
};
