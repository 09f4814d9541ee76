/**
 * Embeddings on `bedrock` channels, through InvokeModel (`POST {base_url}/model/{modelId}/invoke`,
 * signed as the text calls are), with the body of the model's family:
 *
 * - Amazon Titan Text Embeddings V2 (`amazon.titan-embed-text-v2:0`): one text a call,
 *   `{"inputText", "dimensions"?: 256 | 512 | 1024, "normalize": true, "embeddingTypes":
 *   ["float"]}`, answered `{"embedding", "inputTextTokenCount", "embeddingsByType"}`; Titan
 *   Embeddings G1 (`amazon.titan-embed-text-v1`, `amazon.titan-embed-g1-text-02`) takes
 *   `{"inputText"}` alone and makes 1,536 numbers;
 * - Cohere Embed v3 (`cohere.embed-english-v3`, `cohere.embed-multilingual-v3`): up to 96 texts
 *   of at most 2,048 characters a call, `{"texts", "input_type", "embedding_types": ["float"]}`,
 *   1,024 numbers; Cohere Embed v4 (`cohere.embed-v4:0`) the same with `"output_dimension"`:
 *   256 | 512 | 1024 | 1536. Answered `{"embeddings": {"float": [[…]]}, "id", "response_type",
 *   "texts"}` (`"embeddings": [[…]]` without `embedding_types`), with no token count: the
 *   gateway's estimate is billed.
 *
 * Gemini's `taskType` becomes Cohere's `input_type` (RETRIEVAL_QUERY: search_query,
 * RETRIEVAL_DOCUMENT: search_document, CLASSIFICATION, CLUSTERING; others, and none:
 * search_document, named as ignored). Base64 is made by the gateway. An inference profile
 * (`us.cohere.…`) or a foundation-model ARN is read as the model it names; any other model has
 * no known body and is refused.
 */

import type { EmbeddingJob } from "../jobs/embedding_job.ts";
import { UpstreamAttemptError } from "../upstream/attempt.ts";
import type { UpstreamRequest } from "../upstream/call.ts";
import { bedrockAuthHeaders } from "./bedrock_auth.ts";
import { bedrockCountingModel, bedrockModelPath } from "./bedrock_model_id.ts";
import { isNumberList } from "./embedding_schemas.ts";
import type { EmbeddingProvider, UpstreamTarget } from "./provider.ts";

/** What a Bedrock embedding model's body is and what it takes. */
export interface BedrockEmbedFamily {
  name: "titan-v2" | "titan-g1" | "cohere-v3" | "cohere-v4";
  /** The most texts one call carries. */
  batch: number;
  /** The vector lengths it makes on request; empty: only `nativeDimensions`. */
  dimensions: readonly number[];
  /** The length it makes when none is asked. */
  nativeDimensions: number;
  /** The longest text it takes, in characters, where its documentation says. */
  maxCharacters?: number;
}

const FAMILIES: ReadonlyArray<[RegExp, BedrockEmbedFamily]> = [
  [/^amazon\.titan-embed-text-v2/, {
    name: "titan-v2",
    batch: 1,
    dimensions: [256, 512, 1024],
    nativeDimensions: 1024,
  }],
  [/^amazon\.titan-embed-(?:text-v1|g1-text-02)/, {
    name: "titan-g1",
    batch: 1,
    dimensions: [],
    nativeDimensions: 1536,
  }],
  [/^cohere\.embed-(?:english|multilingual)-v3/, {
    name: "cohere-v3",
    batch: 96,
    dimensions: [],
    nativeDimensions: 1024,
    maxCharacters: 2048,
  }],
  [/^cohere\.embed-v4/, {
    name: "cohere-v4",
    batch: 96,
    dimensions: [256, 512, 1024, 1536],
    nativeDimensions: 1536,
  }],
];

/** The foundation model `modelId` names: an ARN's last segment, a profile's model. */
function foundationModelOf(modelId: string): string {
  return bedrockCountingModel(modelId.slice(modelId.lastIndexOf("/") + 1));
}

/** The embedding family of Bedrock model `modelId`, or undefined when the gateway knows none. */
export function bedrockEmbedFamily(modelId: string): BedrockEmbedFamily | undefined {
  const model = foundationModelOf(modelId);
  return FAMILIES.find(([pattern]) => pattern.test(model))?.[1];
}

/** Gemini's task types Cohere's `input_type` says the same of. */
const INPUT_TYPE_OF_TASK: Record<string, string> = {
  RETRIEVAL_QUERY: "search_query",
  RETRIEVAL_DOCUMENT: "search_document",
  CLASSIFICATION: "classification",
  CLUSTERING: "clustering",
};

/** Why `model` cannot take `job` (named by the request's field), or undefined. */
export function bedrockEmbedRefusal(
  model: string,
  job: EmbeddingJob,
): { param: string; message: string } | undefined {
  const family = bedrockEmbedFamily(model);
  if (!family) {
    return {
      param: "model",
      message: `The gateway does not know how to embed with the Bedrock model '${model}': ` +
        "it serves Amazon Titan Text Embeddings (amazon.titan-embed-text-v2, -v1) and Cohere " +
        "Embed (cohere.embed-english-v3, cohere.embed-multilingual-v3, cohere.embed-v4)",
    };
  }
  if (job.dimensions !== undefined && job.dimensions !== family.nativeDimensions) {
    if (!family.dimensions.includes(job.dimensions)) {
      const takes = family.dimensions.length
        ? `takes ${family.dimensions.join(", ")}`
        : `makes ${family.nativeDimensions} only`;
      return {
        param: "dimensions",
        message: `dimensions ${job.dimensions} is not a vector length this model makes: it ` +
          takes,
      };
    }
  }
  const max = family.maxCharacters;
  if (max !== undefined) {
    const index = job.inputs.findIndex((input) => String(input).length > max);
    if (index >= 0) {
      return {
        param: "input",
        message: `input ${index} is longer than this model's ${max} characters`,
      };
    }
  }
  return undefined;
}

/** The InvokeModel bodies of `job` for `family`, each with how many inputs it carries. */
export function bedrockEmbedBodies(
  family: BedrockEmbedFamily,
  job: EmbeddingJob,
): Array<{ body: Record<string, unknown>; inputs: number }> {
  const texts = job.inputs.map(String);
  const asked = job.dimensions !== undefined && family.dimensions.includes(job.dimensions)
    ? job.dimensions
    : undefined;
  if (family.name === "titan-g1") {
    return texts.map((text) => ({ body: { inputText: text }, inputs: 1 }));
  }
  if (family.name === "titan-v2") {
    return texts.map((text) => ({
      body: {
        inputText: text,
        ...(asked !== undefined && { dimensions: asked }),
        normalize: true,
        embeddingTypes: ["float"],
      },
      inputs: 1,
    }));
  }
  const inputType = INPUT_TYPE_OF_TASK[job.taskType ?? ""] ?? "search_document";
  const bodies: Array<{ body: Record<string, unknown>; inputs: number }> = [];
  for (let start = 0; start < texts.length; start += family.batch) {
    const batch = texts.slice(start, start + family.batch);
    bodies.push({
      body: {
        texts: batch,
        input_type: inputType,
        embedding_types: ["float"],
        ...(family.name === "cohere-v4" && asked !== undefined && { output_dimension: asked }),
      },
      inputs: batch.length,
    });
  }
  return bodies;
}

/** The signed InvokeModel calls of `job` on `target`, in input order. */
export async function bedrockEmbedRequests(
  target: UpstreamTarget,
  job: EmbeddingJob,
): Promise<Array<UpstreamRequest & { inputs: number }>> {
  const { channel, apiKey, model } = target;
  const family = bedrockEmbedFamily(model);
  if (!family) {
    throw new UpstreamAttemptError(bedrockEmbedRefusal(model, job)!.message, {
      retryable: false,
    });
  }
  const url = channel.base_url + bedrockModelPath(model, "invoke");
  return await Promise.all(
    bedrockEmbedBodies(family, job).map(async ({ body, inputs }) => {
      const sent = JSON.stringify(body);
      const headers = await bedrockAuthHeaders(channel, apiKey, {
        method: "POST",
        url,
        headers: { "content-type": "application/json", accept: "application/json" },
        body: sent,
      });
      return { url, inputs, init: { method: "POST", headers, body: sent } };
    }),
  );
}

function badAnswer(message: string): UpstreamAttemptError {
  return new UpstreamAttemptError(message, { retryable: true });
}

/**
 * The vectors of one InvokeModel answer (`expected` of them): Titan's `embedding` (or
 * `embeddingsByType.float`) with its `inputTextTokenCount`, or Cohere's `embeddings` (a list, or
 * `{float: [...]}`), which counts no tokens.
 */
export function readBedrockEmbeddings(text: string, expected: number) {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw badAnswer("The upstream answered with invalid JSON");
  }
  if (json === null || typeof json !== "object") {
    throw badAnswer("The upstream's answer is not an object");
  }
  const answer = json as {
    embedding?: unknown;
    embeddingsByType?: { float?: unknown } | null;
    inputTextTokenCount?: unknown;
    embeddings?: unknown;
  };
  if ("embedding" in answer || "embeddingsByType" in answer) {
    const vector = isNumberList(answer.embedding)
      ? answer.embedding
      : answer.embeddingsByType?.float;
    if (expected !== 1 || !isNumberList(vector)) {
      throw badAnswer(`The upstream answered 1 embedding for ${expected} inputs`);
    }
    return { vectors: [vector], inputTokens: answer.inputTextTokenCount };
  }
  const listed = Array.isArray(answer.embeddings)
    ? answer.embeddings
    : (answer.embeddings as { float?: unknown } | null | undefined)?.float;
  const vectors = Array.isArray(listed) ? listed : [];
  if (vectors.length !== expected || !vectors.every(isNumberList)) {
    throw badAnswer(`The upstream answered ${vectors.length} embeddings for ${expected} inputs`);
  }
  return { vectors: vectors as number[][], inputTokens: undefined };
}

/** Fields of `job` Bedrock model `model` cannot honour. */
export function bedrockEmbedIgnoredFields(model: string, job: EmbeddingJob): string[] {
  const cohere = bedrockEmbedFamily(model)?.name.startsWith("cohere") ?? false;
  const taskTaken = cohere && job.taskType !== undefined && job.taskType in INPUT_TYPE_OF_TASK;
  return [
    ...(job.taskType !== undefined && !taskTaken ? ["taskType"] : []),
    ...(job.titles?.some((title) => title !== undefined) ? ["title"] : []),
    ...(job.user !== undefined ? ["user"] : []),
  ];
}

export const bedrockEmbeddingProvider: EmbeddingProvider = {
  takesTokens: false,
  requests: (target, { job }) => bedrockEmbedRequests(target, job),
  read: (answer, expected) => readBedrockEmbeddings(new TextDecoder().decode(answer), expected),
  ignoredFields: (job, model) => bedrockEmbedIgnoredFields(model, job),
  refusal: bedrockEmbedRefusal,
};
