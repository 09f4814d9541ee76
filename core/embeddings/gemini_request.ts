/**
 * Gemini's embedding requests (embedContent, batchEmbedContents) read into an EmbeddingJob. A
 * content's text parts are joined with a line break into one input; parts other than text are
 * refused (the gateway's embedding channels embed text). A batch's requests must share one
 * `taskType` and `outputDimensionality` (titles may differ) and name the route's model, and a
 * batch holds 1–100 requests, as Google's API allows. Pure.
 */

import { z } from "zod";
import { invalidRequest } from "../errors.ts";
import { validate } from "../util/validate.ts";
import type { EmbeddingJob } from "../jobs/embedding_job.ts";

/** The most requests one batchEmbedContents call takes (Google's limit). */
export const MAX_GEMINI_BATCH = 100;

const contentSchema = z.looseObject({
  role: z.string().optional(),
  parts: z.array(z.looseObject({ text: z.string().optional() })).min(
    1,
    "a content needs at least one part",
  ),
});

/** One EmbedContentRequest. */
export const embedContentRequestSchema = z.looseObject({
  model: z.string().optional(),
  content: contentSchema,
  taskType: z.string().min(1).optional(),
  title: z.string().optional(),
  outputDimensionality: z.int().positive().optional(),
});

/** A BatchEmbedContentsRequest. */
export const batchEmbedContentsRequestSchema = z.looseObject({
  requests: z.array(embedContentRequestSchema).min(1, "requests must not be empty").max(
    MAX_GEMINI_BATCH,
    `at most ${MAX_GEMINI_BATCH} requests are allowed in one batch`,
  ),
});

type EmbedContentRequest = z.infer<typeof embedContentRequestSchema>;

/** The text of `content`, or a 400 naming the part that is not text or the empty content. */
function textOf(content: EmbedContentRequest["content"], at: string): string {
  const texts = content.parts.map((part, index) => {
    if (typeof part.text !== "string") {
      throw invalidRequest(
        `${at}.parts[${index}] must be a text part: embeddings take text only`,
        `${at}.parts[${index}]`,
      );
    }
    return part.text;
  });
  const text = texts.join("\n");
  if (text.trim() === "") throw invalidRequest(`${at} must have some text to embed`, at);
  return text;
}

/** Whether `named` (`models/x` or `x`) names `model`. */
function namesModel(named: string | undefined, model: string): boolean {
  return named === undefined || named.replace(/^models\//, "") === model;
}

/**
 * The job of a batch of requests for `model` (one request for embedContent); `at` is the prefix
 * of a request's fields in error messages.
 */
function jobOf(model: string, requests: EmbedContentRequest[], at: (i: number) => string) {
  const first = requests[0];
  requests.forEach((request, index) => {
    if (!namesModel(request.model, model)) {
      throw invalidRequest(
        `${at(index)}model '${request.model}' is not the model of the URL, 'models/${model}'`,
        `${at(index)}model`,
      );
    }
    for (const field of ["taskType", "outputDimensionality"] as const) {
      if (request[field] !== first[field]) {
        throw invalidRequest(
          `${at(index)}${field} differs from the first request's: the requests of one batch ` +
            `share their ${field}`,
          `${at(index)}${field}`,
        );
      }
    }
  });
  const titles = requests.map((request) => request.title);
  const job: EmbeddingJob = {
    model,
    inputs: requests.map((request, index) => textOf(request.content, `${at(index)}content`)),
    dimensions: first.outputDimensionality,
    taskType: first.taskType,
    ...(titles.some((title) => title !== undefined) ? { titles } : {}),
  };
  return job;
}

const KNOWN_REQUEST_FIELDS = new Set(Object.keys(embedContentRequestSchema.shape));

/** Fields of `requests` no embedding request takes (named once each, as the answer's header). */
export function unknownGeminiFields(requests: readonly object[]): string[] {
  return [
    ...new Set(
      requests.flatMap((request) =>
        Object.keys(request).filter((field) => !KNOWN_REQUEST_FIELDS.has(field))
      ),
    ),
  ];
}

/** An embedContent body (its names already in lowerCamelCase) as a job for `model`. */
export function embedContentJob(model: string, body: unknown): EmbeddingJob {
  const request = validate(embedContentRequestSchema, body);
  return jobOf(model, [request], () => "");
}

/** A batchEmbedContents body as a job for `model`. */
export function batchEmbedContentsJob(model: string, body: unknown): EmbeddingJob {
  const { requests } = validate(batchEmbedContentsRequestSchema, body);
  return jobOf(model, requests, (index) => `requests[${index}].`);
}
