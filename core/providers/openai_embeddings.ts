/**
 * Embeddings on `openai` channels: the request passed through to `{base_url}/embeddings` as the
 * client sent it (its `input` unchanged, the model mapped), the answer read for its vectors and
 * usage.
 */

import type { EmbeddingJob } from "../jobs/embedding_job.ts";
import { UpstreamAttemptError } from "../upstream/attempt.ts";
import type { UpstreamRequest } from "../upstream/call.ts";
import { readLenient } from "../util/lenient_schema.ts";
import { isNumberList, openAIEmbeddingsUsageSchema } from "./embedding_schemas.ts";
import { bearerJson, type EmbeddingProvider, type UpstreamTarget } from "./provider.ts";
import { indexOfToken, lastIndexOfToken, skipSpace, tokenOf } from "../util/json_bytes.ts";

const decoder = new TextDecoder();
const EMBEDDING_KEY = tokenOf('"embedding"');
const USAGE_KEY = tokenOf('"usage"');

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

/** Whether `value` is a vector as an answer carries it: numbers, or a base64 string. */
function isVector(value: unknown): value is number[] | string {
  return typeof value === "string" || isNumberList(value);
}

/**
 * The vectors of an embeddings answer, in input order, and its reported input tokens. Read by
 * hand rather than by a schema: an answer is thousands of numbers per input, and a schema's
 * per-element checks cost several times the JSON parse (the bench's embeddings row).
 */
export function readOpenAIEmbeddings(text: string, expected: number) {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw badAnswer("The upstream answered with invalid JSON");
  }
  const answer = json as { data?: unknown; usage?: unknown } | null;
  const data = answer !== null && typeof answer === "object" && Array.isArray(answer.data)
    ? answer.data as Array<{ index?: unknown; embedding?: unknown } | null>
    : [];
  // Filled, not sparse: \`some\` below skips holes.
  const vectors: Array<number[] | string | undefined> = new Array(expected).fill(undefined);
  data.forEach((item, position) => {
    if (item === null || typeof item !== "object" || !isVector(item.embedding)) return;
    const index = Number.isSafeInteger(item.index) ? item.index as number : position;
    if (index >= 0 && index < expected) vectors[index] = item.embedding;
  });
  if (data.length !== expected || vectors.some((vector) => vector === undefined)) {
    throw badAnswer(`The upstream answered ${data.length} embeddings for ${expected} inputs`);
  }
  return {
    vectors: vectors as Array<number[] | string>,
    inputTokens: readLenient(openAIEmbeddingsUsageSchema, answer).usage?.prompt_tokens,
  };
}

/**
 * An answer's shape checked without parsing its vectors: a JSON object with exactly `expected`
 * `"embedding"` members, all lists (`[`: floats) or all strings (`"`: base64), and a small `usage`
 * object after the last of them that closes the answer (read whole). Null when it does not look
 * so (the answer is then parsed in full). Searched as bytes: the answer is passed on as it came,
 * never decoded.
 */
export function scanOpenAIEmbeddings(
  answer: Uint8Array,
  expected: number,
): { inputTokens: unknown; encoding: "float" | "base64" } | null {
  if (answer[skipSpace(answer, 0)] !== 0x7b) return null;
  let members = 0;
  let strings = 0;
  let last = -1;
  for (
    let at = indexOfToken(answer, EMBEDDING_KEY);
    at >= 0;
    at = indexOfToken(answer, EMBEDDING_KEY, at + 11)
  ) {
    last = at;
    const colon = skipSpace(answer, at + 11);
    if (answer[colon] !== 0x3a) continue;
    const value = answer[skipSpace(answer, colon + 1)];
    if (value === 0x5b) members++;
    else if (value === 0x22) strings++;
  }
  // All one kind: `expected` lists, or `expected` strings.
  if (members + strings !== expected || (members && strings)) return null;
  const at = lastIndexOfToken(answer, USAGE_KEY);
  const open = at < 0 ? -1 : answer.indexOf(0x7b, at);
  const close = open < 0 ? -1 : answer.indexOf(0x7d, open);
  // The usage object closes the answer (as OpenAI writes it): nothing but its brace after it.
  if (close < 0 || last > at) return null;
  const end = skipSpace(answer, close + 1);
  if (answer[end] !== 0x7d || skipSpace(answer, end + 1) !== answer.length) return null;
  try {
    const usage = JSON.parse(decoder.decode(answer.subarray(open, close + 1)));
    return {
      inputTokens: readLenient(openAIEmbeddingsUsageSchema, { usage }).usage?.prompt_tokens,
      encoding: strings ? "base64" : "float",
    };
  } catch {
    return null;
  }
}

export const openAIEmbeddingProvider: EmbeddingProvider = {
  takesTokens: true,
  passThrough: true,
  requests: (target, input) =>
    Promise.resolve([{
      ...openAIEmbeddingsRequest(target, input),
      inputs: input.job.inputs.length,
    }]),
  read: (answer, expected) => {
    const scanned = scanOpenAIEmbeddings(answer, expected);
    if (!scanned) return readOpenAIEmbeddings(decoder.decode(answer), expected);
    let parsed: ReturnType<typeof readOpenAIEmbeddings> | undefined;
    return {
      get vectors() {
        return (parsed ??= readOpenAIEmbeddings(decoder.decode(answer), expected)).vectors;
      },
      inputTokens: scanned.inputTokens,
      raw: answer,
      rawEncoding: scanned.encoding,
    };
  },
  // Gemini's task type and titles have no OpenAI field.
  ignoredFields: (job) => [
    ...(job.taskType !== undefined ? ["taskType"] : []),
    ...(job.titles?.some((title) => title !== undefined) ? ["title"] : []),
  ],
};
