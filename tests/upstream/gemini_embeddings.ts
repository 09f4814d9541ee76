/**
 * A simulated Gemini embedding upstream: `POST /v1beta/models/{m}:embedContent` and
 * `:batchEmbedContents`, as strict as Google's API on what the tests send: `x-goog-api-key`
 * (400 "API key not valid", as Google answers), known model (404 NOT_FOUND), 1–100 requests in a
 * batch each naming `models/{m}`, text parts with some text, `outputDimensionality` honoured
 * (1–3072, Matryoshka truncation). No token usage in the answer, as Google's embed answers have
 * none. Faults: error statuses in Google's envelope.
 */

import { simulatedVector } from "./embedding_vectors.ts";
import { statusName } from "./gemini.ts";
import type { EmbeddingsFault } from "./openai_embeddings.ts";

/** The models the simulator knows, with their full vector length. */
export const GEMINI_EMBEDDING_MODELS: Record<string, number> = {
  "gemini-embedding-001": 3072,
  "text-embedding-004": 768,
};

export interface GeminiEmbeddingsUpstream extends AsyncDisposable {
  /** `http://127.0.0.1:PORT`, a `gemini` channel's base_url. */
  baseUrl: string;
  /** Every request: the method and its JSON body, in order. */
  // deno-lint-ignore no-explicit-any
  requests: Array<{ method: string; body: any }>;
  /** Faults answered to the next requests, one each, in order. */
  faults: EmbeddingsFault[];
  close(): Promise<void>;
}

function googleError(status: number, message: string) {
  return Response.json({ error: { code: status, message, status: statusName(status) } }, {
    status,
  });
}

type EmbedRequest = {
  model?: string;
  content?: { parts?: Array<{ text?: unknown }> };
  outputDimensionality?: unknown;
};

/** The vector of one EmbedContentRequest, or the error Google would answer. */
function embed(model: string, request: EmbedRequest, at: string): number[] | Response {
  const parts = request.content?.parts;
  if (
    !Array.isArray(parts) || parts.length === 0 ||
    parts.some((part) => typeof part.text !== "string")
  ) {
    return googleError(400, `* ${at}.content: contents must be text parts`);
  }
  const text = parts.map((part) => part.text).join("\n");
  if (text.trim() === "") return googleError(400, `* ${at}.content: Text content is empty.`);
  const full = GEMINI_EMBEDDING_MODELS[model];
  const dimensions = request.outputDimensionality ?? full;
  if (
    !Number.isSafeInteger(dimensions) || (dimensions as number) < 1 || (dimensions as number) > full
  ) {
    return googleError(400, `* ${at}.output_dimensionality: must be between 1 and ${full}`);
  }
  return simulatedVector(model, text, dimensions as number);
}

export function startGeminiEmbeddingsUpstream(
  options: { keys?: string[] } = {},
): GeminiEmbeddingsUpstream {
  const keys = options.keys ?? ["gemini-upstream-key"];
  const upstream = { requests: [], faults: [] } as unknown as GeminiEmbeddingsUpstream;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const route = new URL(req.url).pathname.match(
      /^\/v1beta\/models\/([^/:]+):(embedContent|batchEmbedContents)$/,
    );
    if (!route || req.method !== "POST") return googleError(404, "Not found");
    const [, model, method] = route;
    if (!keys.includes(req.headers.get("x-goog-api-key") ?? "")) {
      return googleError(400, "API key not valid. Please pass a valid API key.");
    }
    let body: Record<string, unknown>;
    try {
      body = await req.json();
    } catch {
      return googleError(400, "Invalid JSON payload received.");
    }
    upstream.requests.push({ method, body });
    const fault = upstream.faults.shift();
    if (fault) {
      const response = googleError(
        fault.status,
        fault.message ?? `Simulated failure ${fault.status}`,
      );
      if (fault.retryAfter) response.headers.set("retry-after", fault.retryAfter);
      return response;
    }
    if (!(model in GEMINI_EMBEDDING_MODELS)) {
      return googleError(
        404,
        `models/${model} is not found for API version v1beta, or is not supported for embedContent.`,
      );
    }
    if (method === "embedContent") {
      const vector = embed(model, body as EmbedRequest, "request");
      return vector instanceof Response ? vector : Response.json({ embedding: { values: vector } });
    }
    const requests = body.requests;
    if (!Array.isArray(requests) || requests.length === 0) {
      return googleError(400, "* BatchEmbedContentsRequest.requests: requests must not be empty");
    }
    if (requests.length > 100) {
      return googleError(
        400,
        "* BatchEmbedContentsRequest.requests: at most 100 requests can be in one batch",
      );
    }
    const embeddings = [];
    for (const [index, request] of (requests as EmbedRequest[]).entries()) {
      if (request.model !== `models/${model}`) {
        return googleError(
          400,
          `* BatchEmbedContentsRequest.requests[${index}].model: unexpected model name format`,
        );
      }
      const vector = embed(model, request, `BatchEmbedContentsRequest.requests[${index}]`);
      if (vector instanceof Response) return vector;
      embeddings.push({ values: vector });
    }
    return Response.json({ embeddings });
  });
  upstream.baseUrl = `http://127.0.0.1:${server.addr.port}`;
  upstream.close = () => server.shutdown();
  upstream[Symbol.asyncDispose] = upstream.close;
  return upstream;
}
