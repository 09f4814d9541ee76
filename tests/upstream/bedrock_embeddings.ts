/**
 * The embedding models of the simulated Bedrock runtime (tests/upstream/bedrock.ts), on
 * `POST /model/{id}/invoke`, as strict as AWS's documentation of their bodies:
 * - Titan Text Embeddings V2: `{inputText (1–50,000 characters), dimensions?: 256 | 512 | 1024,
 *   normalize?: boolean, embeddingTypes?: ["float" | "binary"]}`, answered `{embedding,
 *   inputTextTokenCount, embeddingsByType}`;
 * - Cohere Embed v3: `{texts (1–96, each at most 2,048 characters), input_type
 *   (search_document | search_query | classification | clustering, required), truncate?: NONE |
 *   START | END, embedding_types?: [float | int8 | uint8 | binary | ubinary]}`; v4 the same with
 *   `output_dimension?: 256 | 512 | 1024 | 1536`, `max_tokens?` and truncate NONE | LEFT | RIGHT.
 *   Answered `{id, embeddings, response_type, texts}` (`embeddings` a list of vectors, or
 *   `{float: [...]}` when `embedding_types` was given), with no token count.
 * Any other field, a missing one or a wrong value is a ValidationException's message. Vectors are
 * embedding_vectors.ts's, so tests recompute them; Titan counts tokens as `simulatedTokens`.
 */

import { simulatedVector } from "./embedding_vectors.ts";
import { simulatedTokens } from "./openai_embeddings.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

export const BEDROCK_TEST_TITAN = "amazon.titan-embed-text-v2:0";
export const BEDROCK_TEST_COHERE = "cohere.embed-english-v3";
export const BEDROCK_TEST_COHERE_V4 = "cohere.embed-v4:0";

/** The embedding models the simulator serves. */
export const BEDROCK_EMBEDDING_MODELS = [
  BEDROCK_TEST_TITAN,
  BEDROCK_TEST_COHERE,
  "cohere.embed-multilingual-v3",
  BEDROCK_TEST_COHERE_V4,
];

const INPUT_TYPES = ["search_document", "search_query", "classification", "clustering"];

function extraneous(body: Json, allowed: string[]): string | undefined {
  const extra = Object.keys(body).find((field) => !allowed.includes(field));
  return extra === undefined
    ? undefined
    : `Malformed input request: #: extraneous key [${extra}] ` +
      "is not permitted, please reformat your input and try again.";
}

function invalid(detail: string): string {
  return `Malformed input request: ${detail}, please reformat your input and try again.`;
}

/** Titan Text Embeddings V2's answer to `body`, or the ValidationException's message. */
function titanAnswer(modelId: string, body: Json): Json | string {
  const refusal = extraneous(body, ["inputText", "dimensions", "normalize", "embeddingTypes"]);
  if (refusal) return refusal;
  const text = body.inputText;
  if (typeof text !== "string") return invalid("#: required key [inputText] not found");
  if (text.length < 1 || text.length > 50_000) {
    return invalid("#/inputText: expected minLength: 1, actual: 0");
  }
  const dimensions = body.dimensions ?? 1024;
  if (![256, 512, 1024].includes(dimensions)) {
    return invalid(`#/dimensions: ${dimensions} is not a valid enum value`);
  }
  if (body.normalize !== undefined && typeof body.normalize !== "boolean") {
    return invalid("#/normalize: expected type: Boolean");
  }
  const types = body.embeddingTypes ?? ["float"];
  if (
    !Array.isArray(types) || types.length === 0 ||
    types.some((type) => !["float", "binary"].includes(type))
  ) {
    return invalid("#/embeddingTypes: expected a list of float and binary");
  }
  const vector = simulatedVector(modelId, text, dimensions);
  return {
    embedding: vector,
    inputTextTokenCount: simulatedTokens(text),
    embeddingsByType: {
      ...(types.includes("float") && { float: vector }),
      ...(types.includes("binary") && { binary: vector.map((value) => value > 0 ? 1 : 0) }),
    },
  };
}

/** Cohere Embed's answer to `body`, or the ValidationException's message. */
function cohereAnswer(modelId: string, body: Json): Json | string {
  const v4 = modelId.startsWith("cohere.embed-v4");
  const allowed = ["texts", "images", "input_type", "truncate", "embedding_types"];
  const refusal = extraneous(
    body,
    v4 ? [...allowed, "inputs", "output_dimension", "max_tokens"] : allowed,
  );
  if (refusal) return refusal;
  const texts = body.texts;
  if (
    !Array.isArray(texts) || texts.length < 1 || texts.length > 96 ||
    texts.some((text) => typeof text !== "string")
  ) {
    return invalid("#/texts: expected 1 to 96 strings");
  }
  if (!v4 && texts.some((text: string) => text.length > 2048)) {
    return invalid("#/texts: expected maxLength: 2048");
  }
  if (!INPUT_TYPES.includes(body.input_type)) {
    return invalid(
      body.input_type === undefined
        ? "#: required key [input_type] not found"
        : `#/input_type: ${body.input_type} is not a valid enum value`,
    );
  }
  const truncates = v4 ? ["NONE", "LEFT", "RIGHT"] : ["NONE", "START", "END"];
  if (body.truncate !== undefined && !truncates.includes(body.truncate)) {
    return invalid(`#/truncate: ${body.truncate} is not a valid enum value`);
  }
  const types = body.embedding_types;
  const known = ["float", "int8", "uint8", "binary", "ubinary"];
  if (types !== undefined && (!Array.isArray(types) || types.some((t) => !known.includes(t)))) {
    return invalid("#/embedding_types: expected a list of float, int8, uint8, binary, ubinary");
  }
  const dimensions = v4 ? body.output_dimension ?? 1536 : 1024;
  if (![256, 512, 1024, 1536].includes(dimensions)) {
    return invalid(`#/output_dimension: ${dimensions} is not a valid enum value`);
  }
  const vectors = texts.map((text: string) =>
    simulatedVector(`${modelId}\u0000${body.input_type}`, text, dimensions)
  );
  return {
    id: crypto.randomUUID(),
    embeddings: types === undefined ? vectors : { float: vectors },
    response_type: types === undefined ? "embeddings_floats" : "embeddings_by_type",
    texts,
  };
}

/** The vector the simulator makes of `text` with Cohere model `modelId` for `inputType`. */
export function cohereVector(
  modelId: string,
  inputType: string,
  text: string,
  dimensions: number,
): number[] {
  return simulatedVector(`${modelId}\u0000${inputType}`, text, dimensions);
}

/**
 * InvokeModel's answer of embedding model `modelId` to `body` (a JSON answer), the
 * ValidationException's message when it refuses the body, or undefined for a model that is not
 * an embedding model.
 */
export function bedrockEmbeddingAnswer(modelId: string, body: Json): Json | string | undefined {
  const titan = modelId.startsWith("amazon.titan-embed-text-v2");
  if (!titan && !modelId.startsWith("cohere.embed-")) return undefined;
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    return "Malformed input request, please reformat your input and try again.";
  }
  return titan ? titanAnswer(modelId, body) : cohereAnswer(modelId, body);
}
