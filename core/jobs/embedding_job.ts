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

/** Whether any input is a token list (only upstreams that take token ids can serve it). */
export function hasTokenInputs(job: Pick<EmbeddingJob, "inputs">): boolean {
  return job.inputs.some((input) => typeof input !== "string");
}
