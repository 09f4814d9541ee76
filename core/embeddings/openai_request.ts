/**
 * OpenAI's embeddings request (POST /v1/embeddings) read into an EmbeddingJob, with OpenAI's own
 * limits: `input` is a non-empty string, a list of 1–2,048 non-empty strings, one list of token
 * ids, or a list of 1–2,048 non-empty token lists. Pure.
 */

import { z } from "zod";
import { invalidRequest } from "../errors.ts";
import {
  type EmbeddingInput,
  type EmbeddingJob,
  MAX_EMBEDDING_INPUTS,
} from "../jobs/embedding_job.ts";
import { validate } from "../util/validate.ts";

const tokenList = z.array(z.int().nonnegative()).min(1);

/** The request as documented (its `input` is checked by `embeddingInputsOf` first). */
export const embeddingsRequestSchema = z.looseObject({
  model: z.string().min(1, "must not be empty"),
  input: z.union([
    z.string().min(1),
    z.array(z.string().min(1)).min(1).max(MAX_EMBEDDING_INPUTS),
    tokenList,
    z.array(tokenList).min(1).max(MAX_EMBEDDING_INPUTS),
  ]),
  encoding_format: z.enum(["float", "base64"]).default("float"),
  dimensions: z.int().positive().optional(),
  user: z.string().optional(),
});

/** The fields an embeddings request takes; any other is named as ignored. */
export const KNOWN_EMBEDDING_FIELDS = new Set(Object.keys(embeddingsRequestSchema.shape));

const isTokenId = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0;

function tokenListOf(value: unknown[], at: string): number[] {
  if (value.length === 0) throw invalidRequest(`'${at}' must not be an empty token list`, at);
  const bad = value.findIndex((token) => !isTokenId(token));
  if (bad !== -1) {
    throw invalidRequest(
      `'${at}[${bad}]' must be a token id (a whole number of 0 or more)`,
      `${at}[${bad}]`,
    );
  }
  return value as number[];
}

/** The inputs of `input`, or a 400 that says what is wrong with it. */
export function embeddingInputsOf(input: unknown): EmbeddingInput[] {
  const shapes = "a string, an array of strings, an array of token ids, or an array of " +
    "token id arrays";
  if (input === undefined || input === null) {
    throw invalidRequest(`'input' is required: ${shapes}`, "input");
  }
  if (typeof input === "string") {
    if (input === "") throw invalidRequest("'input' must not be an empty string", "input");
    return [input];
  }
  if (!Array.isArray(input)) throw invalidRequest(`'input' must be ${shapes}`, "input");
  if (input.length === 0) throw invalidRequest("'input' must not be an empty array", "input");
  if (typeof input[0] === "number") return [tokenListOf(input, "input")];
  if (input.length > MAX_EMBEDDING_INPUTS) {
    throw invalidRequest(
      `'input' has ${input.length} entries; at most ${MAX_EMBEDDING_INPUTS} are allowed`,
      "input",
    );
  }
  const strings = typeof input[0] === "string";
  return input.map((entry, index) => {
    const at = `input[${index}]`;
    if (strings) {
      if (typeof entry !== "string") {
        throw invalidRequest(`'${at}' must be a string, as the other entries are`, at);
      }
      if (entry === "") throw invalidRequest(`'${at}' must not be an empty string`, at);
      return entry;
    }
    if (!Array.isArray(entry)) throw invalidRequest(`'${at}' must be ${shapes.slice(2)}`, at);
    return tokenListOf(entry, at);
  });
}

/** An OpenAI embeddings body as a job, whether base64 was asked, and the fields not taken. */
export function openAIEmbeddingsJob(body: unknown): {
  job: EmbeddingJob;
  base64: boolean;
  ignoredFields: string[];
} {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw invalidRequest("The request body must be a JSON object");
  }
  const fields = body as Record<string, unknown>;
  if (typeof fields.model !== "string" || fields.model === "") {
    throw invalidRequest("'model' is required: the id of an embedding model", "model");
  }
  const inputs = embeddingInputsOf(fields.input);
  const request = validate(embeddingsRequestSchema, fields);
  return {
    job: {
      model: request.model,
      inputs,
      rawInput: request.input,
      dimensions: request.dimensions,
      user: request.user,
    },
    base64: request.encoding_format === "base64",
    ignoredFields: Object.keys(fields).filter((field) => !KNOWN_EMBEDDING_FIELDS.has(field)),
  };
}
