/**
 * The model-list endpoints of the simulated upstreams, answered as the real APIs answer them:
 * OpenAI's `GET /v1/models` (one page, `{object: "list", data: [{id, object, created,
 * owned_by}]}`), Anthropic's `GET /v1/models` (`limit` 1–1000, default 20, paged by `after_id`;
 * `{data: [{type, id, display_name, created_at}], has_more, first_id, last_id}`) and Gemini's
 * `GET /v1beta/models` (`pageSize` default 50, max 1000, `pageToken`; `{models: [{name:
 * "models/…", displayName, supportedGenerationMethods}], nextPageToken}`). Each checks the key
 * as its API does. A simulator hands its request here first; undefined means "not a list call".
 */

export type ModelListDialect = "openai" | "anthropic" | "gemini";

/** A model a simulator lists; `methods` only for Gemini (default: generate and count). */
export interface ListedModel {
  id: string;
  label?: string;
  methods?: string[];
}

export interface ModelListOptions {
  dialect: ModelListDialect;
  keys: readonly string[];
  models: readonly ListedModel[];
  /** The largest page the simulator gives, below the API's own (to test paging). */
  maxPage?: number;
}

const CREATED = 1_715_367_049;

function openAIList(req: Request, options: ModelListOptions): Response {
  const authorization = req.headers.get("authorization");
  if (!options.keys.some((key) => authorization === `Bearer ${key}`)) {
    return Response.json({
      error: {
        message: "Incorrect API key provided",
        type: "invalid_request_error",
        param: null,
        code: "invalid_api_key",
      },
    }, { status: 401 });
  }
  return Response.json({
    object: "list",
    data: options.models.map(({ id }) => ({
      id,
      object: "model",
      created: CREATED,
      owned_by: "system",
    })),
  });
}

function anthropicList(req: Request, url: URL, options: ModelListOptions): Response {
  const error = (status: number, type: string, message: string) =>
    Response.json({ type: "error", error: { type, message }, request_id: "req_sim" }, { status });
  const apiKey = req.headers.get("x-api-key");
  if (!apiKey || !options.keys.includes(apiKey)) {
    return error(401, "authentication_error", "invalid x-api-key");
  }
  if (!req.headers.get("anthropic-version")) {
    return error(400, "invalid_request_error", "anthropic-version: header is required");
  }
  const limit = Number(url.searchParams.get("limit") ?? "20");
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    return error(400, "invalid_request_error", "limit: Input should be between 1 and 1000");
  }
  const after = url.searchParams.get("after_id");
  const start = after === null ? 0 : options.models.findIndex(({ id }) => id === after) + 1;
  const size = Math.min(limit, options.maxPage ?? 1000);
  const page = options.models.slice(start, start + size);
  return Response.json({
    data: page.map(({ id, label }) => ({
      type: "model",
      id,
      display_name: label ?? id,
      created_at: "2025-02-19T00:00:00Z",
    })),
    has_more: start + size < options.models.length,
    first_id: page[0]?.id ?? null,
    last_id: page.at(-1)?.id ?? null,
  });
}

function geminiList(req: Request, url: URL, options: ModelListOptions): Response {
  const error = (status: number, name: string, message: string) =>
    Response.json({ error: { code: status, message, status: name } }, { status });
  const apiKey = req.headers.get("x-goog-api-key") ?? url.searchParams.get("key");
  if (!apiKey) {
    return error(
      403,
      "PERMISSION_DENIED",
      "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
    );
  }
  if (!options.keys.includes(apiKey)) {
    return error(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.");
  }
  const pageSize = Math.min(Number(url.searchParams.get("pageSize") ?? "50") || 50, 1000);
  const start = Number(url.searchParams.get("pageToken") ?? "0") || 0;
  const size = Math.min(pageSize, options.maxPage ?? 1000);
  const page = options.models.slice(start, start + size);
  const more = start + size < options.models.length;
  return Response.json({
    models: page.map(({ id, label, methods }) => ({
      name: `models/${id}`,
      version: "001",
      displayName: label ?? id,
      inputTokenLimit: 1_048_576,
      outputTokenLimit: 8192,
      supportedGenerationMethods: methods ?? ["generateContent", "countTokens"],
    })),
    ...(more ? { nextPageToken: String(start + size) } : {}),
  });
}

const PATHS: Record<ModelListDialect, string> = {
  openai: "/v1/models",
  anthropic: "/v1/models",
  gemini: "/v1beta/models",
};

/** The answer to a model-list call, or undefined when `req` is not one. */
export function modelListAnswer(req: Request, options: ModelListOptions): Response | undefined {
  const url = new URL(req.url);
  if (req.method !== "GET" || url.pathname !== PATHS[options.dialect]) return undefined;
  if (options.dialect === "openai") return openAIList(req, options);
  if (options.dialect === "anthropic") return anthropicList(req, url, options);
  return geminiList(req, url, options);
}
