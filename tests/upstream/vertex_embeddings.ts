/**
 * The Vertex simulator's text embeddings (`publishers/google/models/{m}:predict`), as strict as
 * Google documents the API: a PredictRequest (`instances`, `parameters`, `labels`; other fields
 * refused), each instance `{content, task_type?, title?}` (other fields refused, a known task
 * type, a title only with RETRIEVAL_DOCUMENT, some text), `parameters`
 * `{autoTruncate?, outputDimensionality?}` (1 to the model's full length); gemini-embedding-001
 * takes one instance a call, the others 1–250 and at most 20,000 tokens in all; an input longer
 * than 2,048 tokens is truncated (`truncated: true`), or refused with `autoTruncate: false`.
 * Answered `{predictions: [{embeddings: {values, statistics: {token_count, truncated}}}],
 * metadata: {billableCharacterCount}}`, vectors from embedding_vectors.ts (Matryoshka truncation).
 */

import { simulatedVector } from "./embedding_vectors.ts";

/** The embedding models the simulator serves, with their full vector length. */
export const VERTEX_EMBEDDING_MODELS: Record<string, number> = {
  "gemini-embedding-001": 3072,
  "text-embedding-005": 768,
  "text-multilingual-embedding-002": 768,
};

export const VERTEX_TASK_TYPES = [
  "RETRIEVAL_QUERY",
  "RETRIEVAL_DOCUMENT",
  "SEMANTIC_SIMILARITY",
  "CLASSIFICATION",
  "CLUSTERING",
  "QUESTION_ANSWERING",
  "FACT_VERIFICATION",
  "CODE_RETRIEVAL_QUERY",
];

const REQUEST_FIELDS = ["instances", "parameters", "labels"];
const INSTANCE_FIELDS = ["content", "task_type", "title"];
const PARAMETER_FIELDS = ["autoTruncate", "outputDimensionality"];
const MAX_INSTANCES = 250;
const MAX_CALL_TOKENS = 20_000;
const MAX_INPUT_TOKENS = 2_048;

/** The tokens the simulator counts in `text`: one per 4 characters, rounded up. */
export function vertexEmbedTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

/** Whether `model` is one of the simulator's embedding models. */
export function isVertexEmbeddingModel(model: string): boolean {
  return model in VERTEX_EMBEDDING_MODELS;
}

function invalid(message: string): Response {
  return Response.json(
    { error: { code: 400, message, status: "INVALID_ARGUMENT" } },
    { status: 400 },
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function unknownField(object: Record<string, unknown>, known: string[], at: string) {
  const field = Object.keys(object).find((name) => !known.includes(name));
  return field === undefined ? undefined : invalid(
    `Invalid JSON payload received. Unknown name "${field}" at '${at}': Cannot find field.`,
  );
}

/** The answer to a `:predict` call of embedding model `model` with JSON text `text`. */
export function vertexPredict(model: string, text: string): Response {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return invalid("Invalid JSON payload received.");
  }
  if (!isObject(body)) return invalid("Invalid JSON payload received.");
  const unknown = unknownField(body, REQUEST_FIELDS, "");
  if (unknown) return unknown;
  const { instances, parameters = {} } = body as { instances?: unknown; parameters?: unknown };
  if (!Array.isArray(instances) || instances.length === 0) {
    return invalid("instances must be a non-empty list.");
  }
  const most = model.startsWith("gemini-embedding") ? 1 : MAX_INSTANCES;
  if (instances.length > most) {
    return invalid(
      `Unable to submit request because the model supports up to ${most} instances per ` +
        `request, but ${instances.length} were given.`,
    );
  }
  if (!isObject(parameters)) return invalid("parameters must be an object.");
  const unknownParameter = unknownField(parameters, PARAMETER_FIELDS, "parameters");
  if (unknownParameter) return unknownParameter;
  const { autoTruncate = true, outputDimensionality } = parameters;
  if (typeof autoTruncate !== "boolean") return invalid("autoTruncate must be a boolean.");
  const full = VERTEX_EMBEDDING_MODELS[model];
  const dimensions = outputDimensionality ?? full;
  if (
    !Number.isSafeInteger(dimensions) || (dimensions as number) < 1 ||
    (dimensions as number) > full
  ) {
    return invalid(`outputDimensionality must be between 1 and ${full} for ${model}.`);
  }
  const read: Array<{ content: string; tokens: number; truncated: boolean }> = [];
  for (const [index, instance] of instances.entries()) {
    const at = `instances[${index}]`;
    if (!isObject(instance)) return invalid(`${at} must be an object.`);
    const unknownKey = unknownField(instance, INSTANCE_FIELDS, at);
    if (unknownKey) return unknownKey;
    const { content, task_type: taskType, title } = instance;
    if (typeof content !== "string" || content.trim() === "") {
      return invalid(`${at}.content must be a non-empty string.`);
    }
    if (taskType !== undefined && !VERTEX_TASK_TYPES.includes(taskType as string)) {
      return invalid(`${at}.task_type: invalid task type ${JSON.stringify(taskType)}.`);
    }
    if (title !== undefined) {
      if (typeof title !== "string") return invalid(`${at}.title must be a string.`);
      if (taskType !== "RETRIEVAL_DOCUMENT") {
        return invalid(`${at}.title is only supported with task_type RETRIEVAL_DOCUMENT.`);
      }
    }
    const counted = vertexEmbedTokens(content);
    if (counted > MAX_INPUT_TOKENS && !autoTruncate) {
      return invalid(
        `${at} has ${counted} tokens, more than the ${MAX_INPUT_TOKENS} the model takes.`,
      );
    }
    read.push({
      content,
      tokens: Math.min(counted, MAX_INPUT_TOKENS),
      truncated: counted > MAX_INPUT_TOKENS,
    });
  }
  const tokens = read.reduce((sum, entry) => sum + entry.tokens, 0);
  if (tokens > MAX_CALL_TOKENS) {
    return invalid(
      `Unable to submit request because the input token count is ${tokens} but the model ` +
        `supports up to ${MAX_CALL_TOKENS}.`,
    );
  }
  return Response.json({
    predictions: read.map((entry) => ({
      embeddings: {
        statistics: { truncated: entry.truncated, token_count: entry.tokens },
        values: simulatedVector(model, entry.content, dimensions as number),
      },
    })),
    metadata: {
      billableCharacterCount: read.reduce(
        (sum, entry) => sum + entry.content.replace(/\s/g, "").length,
        0,
      ),
    },
  });
}
