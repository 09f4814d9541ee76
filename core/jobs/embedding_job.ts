/**
 * An embedding request in one neutral shape, whichever interface it came from (OpenAI's
 * /v1/embeddings, Gemini's embedContent and batchEmbedContents), and its token bounds. Pure.
 */

/** One input: text, or (OpenAI only) a list of token ids. */
export type EmbeddingInput = string | number[];

export interface EmbeddingJob {
  /** The public model id. */
  model: string;
  /** The inputs, in order; one vector comes back for each. */
  inputs: EmbeddingInput[];
  /** The client's `input` as it came (OpenAI inbound), passed through unchanged to OpenAI. */
  rawInput?: unknown;
  /** The vector length asked for (`dimensions` / `outputDimensionality`). */
  dimensions?: number;
  /** OpenAI's end-user id. */
  user?: string;
  /** Gemini's task type (RETRIEVAL_QUERY, RETRIEVAL_DOCUMENT, …). */
  taskType?: string;
  /** Gemini's document titles, by input index (only given ones). */
  titles?: Array<string | undefined>;
}

/** The most inputs one request may carry (OpenAI's limit). */
export const MAX_EMBEDDING_INPUTS = 2048;

const encoder = new TextEncoder();

/**
 * The input's tokens, bounded and estimated: a text is at most one token per UTF-8 byte and
 * estimated at 4 characters per token, rounded up, per input; a token list is exactly its length.
 * The bound is the hold's; the estimate is billed when the upstream reports no usage.
 */
export function embeddingTokens(inputs: readonly EmbeddingInput[]): {
  upperBound: number;
  estimate: number;
} {
  let upperBound = 0;
  let estimate = 0;
  for (const input of inputs) {
    if (typeof input === "string") {
      upperBound += Math.max(1, encoder.encode(input).length);
      estimate += Math.max(1, Math.ceil(input.length / 4));
    } else {
      upperBound += input.length;
      estimate += input.length;
    }
  }
  return { upperBound, estimate };
}

/** The longest vector of the upstreams served (text-embedding-3-large, gemini-embedding-001). */
const WIDEST_VECTOR = 3072;
/** The most bytes one number takes in a JSON answer (`-0.0012345678901234567,`). */
const BYTES_PER_NUMBER = 24;

/**
 * The largest answer `job` may get: every vector at its asked length (else the widest), as JSON
 * numbers, and 64 KiB for the rest; at least `floor`. 2,048 inputs of 3,072 numbers are well past
 * the media answer limit, and a whole answer must be read to be billed.
 */
export function embeddingAnswerMaxBytes(
  job: Pick<EmbeddingJob, "inputs" | "dimensions">,
  floor: number,
) {
  const numbers = job.inputs.length * (job.dimensions ?? WIDEST_VECTOR);
  return Math.max(floor, numbers * BYTES_PER_NUMBER + 64 * 1024);
}

/** Whether any input is a token list (only upstreams that take token ids can serve it). */
export function hasTokenInputs(job: Pick<EmbeddingJob, "inputs">): boolean {
  return job.inputs.some((input) => typeof input !== "string");
}
