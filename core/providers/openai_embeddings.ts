/**
 * Embeddings on `openai` channels: the request passed through to `{base_url}/embeddings` as the
 * client sent it (its `input` unchanged, the model mapped), the answer read for its vectors and
 * usage.
 */

import type { EmbeddingJob } from "../jobs/embedding_job.ts";
import { UpstreamAttemptError } from "../upstream/attempt.ts";
import type { UpstreamRequest } from "../upstream/call.ts";
import { readLenient } from "../util/lenient_schema.ts";
import { openAIEmbeddingsAnswerSchema } from "./embedding_schemas.ts";
import { bearerJson, type EmbeddingProvider, type UpstreamTarget } from "./provider.ts";

/** The embeddings call of `job` on `target`. */
export function openAIEmbeddingsRequest(
  { channel, apiKey, model }: UpstreamTarget,
  { job, base64 }: { job: EmbeddingJob; base64: boolean },
): UpstreamRequest {
  const body: Record<string, unknown> = {
    model,
    input: job.rawInput ?? job.inputs,
    encoding_format: base64 ? "base64" : "float",
  };
  if (job.dimensions !== undefined) body.dimensions = job.dimensions;
  if (job.user !== undefined) body.user = job.user;
  return {
    url: `${channel.base_url}/embeddings`,
    init: { method: "POST", headers: bearerJson(apiKey), body: JSON.stringify(body) },
  };
}

function badAnswer(message: string): UpstreamAttemptError {
  return new UpstreamAttemptError(message, { retryable: true });
}

/** The vectors of an embeddings answer, in input order, and its reported input tokens. */
export function readOpenAIEmbeddings(text: string, expected: number) {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw badAnswer("The upstream answered with invalid JSON");
  }
  const answer = readLenient(openAIEmbeddingsAnswerSchema, json);
  const vectors: Array<number[] | string> = new Array(expected);
  answer.data.forEach((item, position) => {
    const index = Number.isSafeInteger(item.index) ? item.index as number : position;
    if (index >= 0 && index < expected) vectors[index] = item.embedding;
  });
  if (answer.data.length !== expected || vectors.some((vector) => vector === undefined)) {
    throw badAnswer(
      `The upstream answered ${answer.data.length} embeddings for ${expected} inputs`,
    );
  }
  return { vectors, inputTokens: answer.usage?.prompt_tokens };
}

export const openAIEmbeddingProvider: EmbeddingProvider = {
  takesTokens: true,
  requests: (target, input) =>
    Promise.resolve([{
      ...openAIEmbeddingsRequest(target, input),
      inputs: input.job.inputs.length,
    }]),
  read: readOpenAIEmbeddings,
  // Gemini's task type and titles have no OpenAI field.
  ignoredFields: (job) => [
    ...(job.taskType !== undefined ? ["taskType"] : []),
    ...(job.titles?.some((title) => title !== undefined) ? ["title"] : []),
  ],
};
