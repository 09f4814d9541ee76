/**
 * A simulated rerank upstream that speaks both wire shapes a `rerank` channel may call:
 * `/v1/rerank` as Jina and vLLM answer it (`results[{index, relevance_score, document?}]` and
 * `usage.total_tokens`) and `/v2/rerank` as Cohere v2 answers it (`results[{index,
 * relevance_score}]`, `meta.billed_units.search_units`, documents as strings only). Scores are
 * deterministic (the share of the query's words a document has, less a hair per index), tokens
 * are counted per query–document pair as a cross-encoder reads them. Errors are each API's own:
 * Jina's `{detail}`, vLLM's `{object: "error", message}`, Cohere's `{message}`. Faults on request.
 */

export type RerankFlavour = "jina" | "vllm";

export type RerankFault =
  | { kind: "status"; status: number; message?: string }
  /** Never answers; the request ends when the client aborts. */
  | { kind: "hang" }
  /** 200 with a truncated JSON body. */
  | { kind: "malformed" }
  /** 200 with a result whose index names no document. */
  | { kind: "bad_index" }
  /** 200 without any usage or meta. */
  | { kind: "no_usage" };

export interface RerankRecordedRequest {
  path: string;
  authorization: string | null;
  body: Record<string, unknown>;
}

export interface RerankUpstreamOptions {
  /** Keys accepted; others get 401. Default ["sk-upstream-test"]. */
  keys?: string[];
  /** How `/v1/rerank` answers and errs: Jina's (default) or vLLM's. */
  flavour?: RerankFlavour;
  /** Models served; others are refused as the API refuses them. Default ["rerank-sim"]. */
  models?: string[];
  /** Faults for the next requests, one each, in order. */
  faults?: RerankFault[];
}

export interface RerankUpstream extends AsyncDisposable {
  /** The base URL a channel takes (no path: the channel adds `/v1/rerank` or `/v2/rerank`). */
  baseUrl: string;
  requests: RerankRecordedRequest[];
  faults: RerankFault[];
  close(): Promise<void>;
}

/** The simulator's score of `document` for `query`: deterministic, in [0, 1]. */
export function simulatedScore(query: string, document: string, index: number): number {
  const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const asked = new Set(words(query));
  const has = new Set(words(document));
  const shared = [...asked].filter((word) => has.has(word)).length;
  const score = asked.size ? shared / asked.size : 0;
  return Math.max(0, Math.round((score * 0.98 + 0.01 - index * 1e-6) * 1e6) / 1e6);
}

/** Tokens the simulator counts for a rerank: per pair, the query's and document's words and 2. */
export function simulatedTokens(query: string, documents: readonly string[]): number {
  const count = (text: string) => (text.match(/\S+/g) ?? []).length;
  return documents.reduce((sum, document) => sum + count(query) + count(document) + 2, 0);
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}

export function startRerankUpstream(options: RerankUpstreamOptions = {}): RerankUpstream {
  const keys = options.keys ?? ["sk-upstream-test"];
  const models = options.models ?? ["rerank-sim"];
  const flavour = options.flavour ?? "jina";
  const requests: RerankRecordedRequest[] = [];
  const faults: RerankFault[] = [...options.faults ?? []];

  /** An error as the API on `path` writes it. */
  const error = (path: string, status: number, message: string) => {
    if (path === "/v2/rerank") return json(status, { id: crypto.randomUUID(), message });
    if (flavour === "vllm") {
      return json(status, { object: "error", message, type: "BadRequestError", code: status });
    }
    return json(status, { detail: message });
  };

  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    async (request) => {
      const path = new URL(request.url).pathname;
      if (request.method !== "POST" || (path !== "/v1/rerank" && path !== "/v2/rerank")) {
        return error(path, 404, `No route ${request.method} ${path}`);
      }
      const authorization = request.headers.get("authorization");
      let body: Record<string, unknown>;
      try {
        body = await request.json();
      } catch {
        return error(path, 400, "invalid JSON body");
      }
      requests.push({ path, authorization, body });
      if (!keys.includes((authorization ?? "").replace(/^Bearer /, ""))) {
        return error(path, 401, "invalid api token");
      }
      const fault = faults.shift();
      if (fault?.kind === "status") {
        return error(path, fault.status, fault.message ?? `simulated ${fault.status}`);
      }
      if (fault?.kind === "hang") {
        await new Promise((resolve) => request.signal.addEventListener("abort", resolve));
        return new Response(null, { status: 499 });
      }
      if (fault?.kind === "malformed") {
        return new Response('{"results": [{"index": 0,', {
          headers: { "content-type": "application/json" },
        });
      }
      const { model, query, documents, top_n } = body;
      if (typeof model !== "string" || !models.includes(model)) {
        return error(path, path === "/v2/rerank" ? 404 : 400, `model '${model}' not found`);
      }
      if (typeof query !== "string" || query === "") {
        return error(path, 400, "query is required and must be a non-empty string");
      }
      if (!Array.isArray(documents) || documents.length === 0) {
        return error(path, 400, "documents must be a non-empty list");
      }
      if (documents.length > 1000) return error(path, 400, "too many documents: at most 1000");
      const texts: string[] = [];
      for (const document of documents) {
        if (typeof document === "string") texts.push(document);
        else if (
          path === "/v1/rerank" && typeof document === "object" && document !== null &&
          typeof (document as { text?: unknown }).text === "string"
        ) {
          texts.push((document as { text: string }).text);
        } else {
          return error(path, 400, "each document must be a string");
        }
      }
      if (top_n !== undefined && (!Number.isInteger(top_n) || (top_n as number) < 1)) {
        return error(path, 400, "top_n must be a positive integer");
      }
      const ranked = texts.map((text, index) => ({
        index,
        relevance_score: simulatedScore(query, text, index),
      })).sort((a, b) => b.relevance_score - a.relevance_score)
        .slice(0, (top_n as number | undefined) ?? texts.length);
      if (fault?.kind === "bad_index") ranked[0] = { ...ranked[0], index: texts.length + 5 };
      const id = crypto.randomUUID();
      if (path === "/v2/rerank") {
        return json(200, {
          results: ranked,
          id,
          ...(fault?.kind === "no_usage" ? {} : {
            meta: {
              api_version: { version: "2" },
              billed_units: { search_units: Math.ceil(texts.length / 100) },
            },
          }),
        });
      }
      const withDocuments = body.return_documents !== false;
      const results = ranked.map((result) => ({
        index: result.index,
        ...(withDocuments ? { document: { text: texts[result.index] ?? "" } } : {}),
        relevance_score: result.relevance_score,
      }));
      const tokens = simulatedTokens(query, texts);
      const usage = fault?.kind === "no_usage" ? {} : { usage: { total_tokens: tokens } };
      return json(
        200,
        flavour === "vllm" ? { id: `rerank-${id}`, model, ...usage, results } : {
          model,
          ...usage,
          results,
        },
      );
    },
  );
  const baseUrl = `http://127.0.0.1:${server.addr.port}`;
  const close = () => server.shutdown();
  return { baseUrl, requests, faults, close, [Symbol.asyncDispose]: close };
}
