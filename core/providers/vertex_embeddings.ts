/**
 * Embeddings on `vertex` channels: Vertex AI's text embedding models (gemini-embedding-001,
 * text-embedding-005, text-multilingual-embedding-002) through `:predict`, each input one
 * instance `{content, task_type?, title?}`, `dimensions` as `parameters.outputDimensionality`;
 * answered `{predictions: [{embeddings: {values, statistics: {token_count, truncated}}}]}`, whose
 * token counts are the usage. Pure; vertex.ts sends the calls with the channel's bearer token.
 *
 * Google's limits, as documented: gemini-embedding-001 takes one instance a call; the others up
 * to 250, and at most 20,000 input tokens a call, each input read up to 2,048 tokens (longer ones
 * truncated). A job is split into calls within them; an input's tokens are bounded by its UTF-8
 * bytes (at most 2,048), so a call never passes the token cap. A title goes only with
 * RETRIEVAL_DOCUMENT (Vertex refuses it with other task types); otherwise it is named as ignored.
 */

import type { EmbeddingJob } from "../jobs/embedding_job.ts";
import { UpstreamAttemptError } from "../upstream/attempt.ts";
import { isNumberList } from "./embedding_schemas.ts";
import type { UpstreamEmbeddings } from "./provider.ts";

/** The most instances a text embedding model's `:predict` call takes. */
export const VERTEX_EMBED_BATCH = 250;
/** The most input tokens one call's instances may hold together. */
export const VERTEX_EMBED_CALL_TOKENS = 20_000;
/** The most tokens of one input the models read (longer inputs are truncated). */
export const VERTEX_EMBED_INPUT_TOKENS = 2_048;

/** The task type that takes titles. */
const TITLED_TASK = "RETRIEVAL_DOCUMENT";

/** One instance of a `:predict` body. */
export interface VertexEmbedInstance {
  content: string;
  task_type?: string;
  title?: string;
}

/** One `:predict` call's body, and how many of the job's inputs it carries. */
export interface VertexEmbedCall {
  inputs: number;
  body: {
    instances: VertexEmbedInstance[];
    parameters?: { outputDimensionality: number };
  };
}

/** The most instances `model` takes a call: gemini-embedding models take one. */
export function vertexEmbedBatch(model: string): number {
  return /^gemini-embedding/i.test(model) ? 1 : VERTEX_EMBED_BATCH;
}

const encoder = new TextEncoder();

/** At most how many tokens of `text` the model reads. */
function tokenBound(text: string): number {
  return Math.max(1, Math.min(VERTEX_EMBED_INPUT_TOKENS, encoder.encode(text).length));
}

/** The task type sent: none for an unspecified one (the model's default then applies). */
function taskTypeOf(job: EmbeddingJob): string | undefined {
  return job.taskType === undefined || job.taskType === "TASK_TYPE_UNSPECIFIED"
    ? undefined
    : job.taskType;
}

/** The instance of input `index`. Token-id inputs never reach here (text-only channel). */
function instanceOf(job: EmbeddingJob, index: number): VertexEmbedInstance {
  const taskType = taskTypeOf(job);
  const title = taskType === TITLED_TASK ? job.titles?.[index] : undefined;
  return {
    content: String(job.inputs[index]),
    ...(taskType !== undefined ? { task_type: taskType } : {}),
    ...(title !== undefined ? { title } : {}),
  };
}

/** The `:predict` calls of `job` for upstream model `model`, in input order. */
export function vertexEmbedCalls(model: string, job: EmbeddingJob): VertexEmbedCall[] {
  const most = vertexEmbedBatch(model);
  const parameters = job.dimensions !== undefined
    ? { parameters: { outputDimensionality: job.dimensions } }
    : {};
  const calls: VertexEmbedCall[] = [];
  let instances: VertexEmbedInstance[] = [];
  let tokens = 0;
  const close = () => {
    if (instances.length) {
      calls.push({ inputs: instances.length, body: { instances, ...parameters } });
    }
    instances = [];
    tokens = 0;
  };
  job.inputs.forEach((_, index) => {
    const instance = instanceOf(job, index);
    const bound = tokenBound(instance.content);
    if (instances.length === most || tokens + bound > VERTEX_EMBED_CALL_TOKENS) close();
    instances.push(instance);
    tokens += bound;
  });
  close();
  return calls;
}

/** Fields of `job` a vertex channel cannot honour: `user`, titles without RETRIEVAL_DOCUMENT. */
export function vertexEmbedIgnoredFields(job: EmbeddingJob): string[] {
  const titled = job.titles?.some((title) => title !== undefined) ?? false;
  return [
    ...(job.user !== undefined ? ["user"] : []),
    ...(titled && taskTypeOf(job) !== TITLED_TASK ? ["title"] : []),
  ];
}

/**
 * The vectors of one `:predict` answer (`expected` of them) and the sum of their token counts
 * (undefined unless every prediction has one).
 */
export function readVertexEmbeddings(text: string, expected: number): UpstreamEmbeddings {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UpstreamAttemptError("The upstream answered with invalid JSON", { retryable: true });
  }
  const answer = json as { predictions?: unknown } | null;
  const predictions = answer !== null && typeof answer === "object" &&
      Array.isArray(answer.predictions)
    ? answer.predictions as unknown[]
    : [];
  const read = predictions.map((prediction) => {
    const embeddings = (prediction as { embeddings?: unknown } | null)?.embeddings as
      | {
        values?: unknown;
        statistics?: { token_count?: unknown } | null;
      }
      | null
      | undefined;
    if (embeddings === null || typeof embeddings !== "object") return undefined;
    if (!isNumberList(embeddings.values)) return undefined;
    return { values: embeddings.values, tokens: embeddings.statistics?.token_count };
  });
  if (read.length !== expected || read.some((entry) => entry === undefined)) {
    throw new UpstreamAttemptError(
      `The upstream answered ${read.length} embeddings for ${expected} inputs`,
      { retryable: true },
    );
  }
  const entries = read as Array<{ values: number[]; tokens: unknown }>;
  const counted = entries.every((entry) =>
    typeof entry.tokens === "number" && Number.isFinite(entry.tokens)
  );
  return {
    vectors: entries.map((entry) => entry.values),
    inputTokens: counted
      ? entries.reduce((sum, entry) => sum + (entry.tokens as number), 0)
      : undefined,
  };
}
