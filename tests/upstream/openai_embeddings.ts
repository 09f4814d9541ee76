/**
 * A simulated OpenAI embeddings upstream (`POST /v1/embeddings`), as strict as the real API on
 * what the tests send: Bearer key (401), known model (404 `model_not_found`), `input` a non-empty
 * string, string list, token list or list of token lists of at most 2,048 entries (400, as
 * OpenAI's "'$.input' is invalid"), `encoding_format` float|base64, `dimensions` honoured by the
 * text-embedding-3 models up to their length and refused by text-embedding-ada-002 ("This model
 * does not support specifying dimensions."). Vectors are deterministic (embedding_vectors.ts);
 * usage counts a token per 3 characters (a token list: its length), so a test can tell the
 * upstream's count from the gateway's estimate. Faults: error statuses in OpenAI's envelope.
 */

import { simulatedVector } from "./embedding_vectors.ts";
import { vectorToBase64 } from "../../core/embeddings/vector_encoding.ts";

export interface EmbeddingsFault {
  status: number;
  message?: string;
  retryAfter?: string;
}

/** The models the simulator knows: their full length and whether they take `dimensions`. */
export const OPENAI_EMBEDDING_MODELS: Record<string, { length: number; dimensions: boolean }> = {
  "text-embedding-3-small": { length: 1536, dimensions: true },
  "text-embedding-3-large": { length: 3072, dimensions: true },
  "text-embedding-ada-002": { length: 1536, dimensions: false },
};

/** The simulator's count of `input`'s tokens. */
export function simulatedTokens(input: string | number[]): number {
  return typeof input === "string" ? Math.ceil(input.length / 3) : input.length;
}

export interface OpenAIEmbeddingsUpstream extends AsyncDisposable {
  /** `http://127.0.0.1:PORT/v1`, an `openai` channel's base_url. */
  baseUrl: string;
  /** Every request's JSON body, in order. */
  requests: Array<Record<string, unknown>>;
  /** Faults answered to the next requests, one each, in order. */
  faults: EmbeddingsFault[];
  /** Leaves `usage` out of the answers when false (default true). */
  usage: boolean;
  /** Answers floats whatever `encoding_format` asks, as some OpenAI-compatible servers do. */
  floatsOnly: boolean;
  close(): Promise<void>;
}

function openAIError(status: number, message: string, type: string, code: string | null = null) {
  return Response.json({ error: { message, type, param: null, code } }, { status });
}

const invalidInput = () =>
  openAIError(
    400,
    "'$.input' is invalid. Please check the API reference.",
    "invalid_request_error",
  );

const isTokenList = (value: unknown) =>
  Array.isArray(value) && value.length > 0 &&
  value.every((token) => Number.isSafeInteger(token) && token >= 0);

/** The inputs of a body's `input`, or undefined when OpenAI would refuse it. */
function inputsOf(input: unknown): Array<string | number[]> | undefined {
  if (typeof input === "string") return input === "" ? undefined : [input];
  if (!Array.isArray(input) || input.length === 0 || input.length > 2048) return undefined;
  if (isTokenList(input)) return [input as number[]];
  if (input.every((entry) => typeof entry === "string" && entry !== "")) return input as string[];
  if (input.every(isTokenList)) return input as number[][];
  return undefined;
}

export function startOpenAIEmbeddingsUpstream(
  options: { keys?: string[] } = {},
): OpenAIEmbeddingsUpstream {
  const keys = options.keys ?? ["sk-upstream-test"];
  const upstream = {
    requests: [],
    faults: [],
    usage: true,
    floatsOnly: false,
  } as unknown as OpenAIEmbeddingsUpstream;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    if (new URL(req.url).pathname !== "/v1/embeddings" || req.method !== "POST") {
      return openAIError(404, "Not found", "invalid_request_error");
    }
    const authorization = req.headers.get("authorization") ?? "";
    if (!keys.some((key) => authorization === `Bearer ${key}`)) {
      return openAIError(
        401,
        "Incorrect API key provided.",
        "invalid_request_error",
        "invalid_api_key",
      );
    }
    let body: Record<string, unknown>;
    try {
      body = await req.json();
    } catch {
      return openAIError(
        400,
        "We could not parse the JSON body of your request.",
        "invalid_request_error",
      );
    }
    upstream.requests.push(body);
    const fault = upstream.faults.shift();
    if (fault) {
      const response = openAIError(
        fault.status,
        fault.message ?? `Simulated failure ${fault.status}`,
        fault.status === 429 ? "rate_limit_exceeded" : "server_error",
      );
      if (fault.retryAfter) response.headers.set("retry-after", fault.retryAfter);
      return response;
    }
    const model = OPENAI_EMBEDDING_MODELS[String(body.model)];
    if (!model) {
      return openAIError(
        404,
        `The model \`${body.model}\` does not exist or you do not have access to it.`,
        "invalid_request_error",
        "model_not_found",
      );
    }
    const inputs = inputsOf(body.input);
    if (!inputs) return invalidInput();
    const format = body.encoding_format ?? "float";
    if (format !== "float" && format !== "base64") {
      return openAIError(
        400,
        `'${format}' is not one of ['float', 'base64'] - 'encoding_format'`,
        "invalid_request_error",
      );
    }
    let length = model.length;
    if (body.dimensions !== undefined) {
      if (!model.dimensions) {
        return openAIError(
          400,
          "This model does not support specifying dimensions.",
          "invalid_request_error",
        );
      }
      const dimensions = body.dimensions;
      if (
        !Number.isSafeInteger(dimensions) || (dimensions as number) < 1 ||
        (dimensions as number) > model.length
      ) {
        return openAIError(
          400,
          `Invalid value for 'dimensions' = ${dimensions}. Must be between 1 and ${model.length}.`,
          "invalid_request_error",
        );
      }
      length = dimensions as number;
    }
    const tokens = inputs.reduce((sum, input) => sum + simulatedTokens(input), 0);
    return Response.json({
      object: "list",
      data: inputs.map((input, index) => {
        const vector = simulatedVector(String(body.model), String(input), length);
        return {
          object: "embedding",
          index,
          embedding: format === "base64" && !upstream.floatsOnly ? vectorToBase64(vector) : vector,
        };
      }),
      model: body.model,
      ...(upstream.usage ? { usage: { prompt_tokens: tokens, total_tokens: tokens } } : {}),
    });
  });
  upstream.baseUrl = `http://127.0.0.1:${server.addr.port}/v1`;
  upstream.close = () => server.shutdown();
  upstream[Symbol.asyncDispose] = upstream.close;
  return upstream;
}
