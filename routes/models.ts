/**
 * Model lists for the calling key, in the shape of the SDK family that asks:
 * OpenAI by default, Anthropic for Anthropic credentials, Gemini on /v1beta or Google credentials.
 */

import { Hono } from "hono";
import type { CatalogModel } from "../core/channels/catalog.ts";
import { keyMayUseModel } from "../core/channels/catalog.ts";
import { GatewayError } from "../core/errors.ts";
import type { Gateway } from "../core/gateway.ts";
import type { KeyRecord } from "../core/keys/key_schema.ts";
import { type AppEnv, requireKey } from "./middleware.ts";
import { invalidQueryParameter, queryInteger, queryValue } from "./params.ts";
import { declareRoute, jsonAnswer, serveRoute } from "./openapi/declare_route.ts";

/** Base64 of a string's UTF-8 (btoa alone refuses characters past U+00FF). */
function base64Utf8(text: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text)));
}

/** Models `key` may use that an enabled channel serves, sorted by id. */
export function modelsForKey(gateway: Gateway, key: KeyRecord): CatalogModel[] {
  return gateway.registry.models
    .filter((model) =>
      model.enabled !== false && keyMayUseModel(key, model) &&
      gateway.registry.servesModel(model.id, key.group)
    )
    .sort((a, b) => a.id.localeCompare(b.id));
}

const unixSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

function openAIModel(model: CatalogModel) {
  return {
    id: model.id,
    object: "model",
    created: unixSeconds(model.created_at),
    owned_by: "gateway",
  };
}

/**
 * Every field of the Anthropic SDK's `ModelInfo` (none is optional): the limits from the catalog
 * where it has them (a text model's `context_window` and `max_output_tokens`), else null, as the
 * type allows; the gateway knows no capabilities, line or retirement of a model.
 */
function anthropicModel(model: CatalogModel) {
  const text = model.kind === "text";
  return {
    type: "model",
    id: model.id,
    display_name: model.display_name ?? model.id,
    created_at: model.created_at,
    max_input_tokens: text ? model.context_window ?? null : null,
    max_tokens: text ? model.max_output_tokens ?? null : null,
    capabilities: null,
    lifecycle: "active",
    line: null,
    deprecated_at: null,
    retires_at: null,
  };
}

/**
 * A model's description with the key groups that may use it, as the specification puts them
 * there ("Image generation and edits. Groups: default, images."). Of the three list shapes only
 * Google's has a description (OpenAI's Model and Anthropic's ModelInfo have none).
 */
function describedWithGroups(model: Pick<CatalogModel, "description" | "groups">): string {
  const text = model.description.trim();
  const groups = `Groups: ${model.groups.join(", ")}.`;
  if (!text) return groups;
  return `${text}${/[.!?]$/.test(text) ? "" : "."} ${groups}`;
}

function geminiModel(model: CatalogModel) {
  return {
    name: `models/${model.id}`,
    version: "1",
    displayName: model.display_name ?? model.id,
    description: describedWithGroups(model),
    inputTokenLimit: model.context_window ?? 128_000,
    outputTokenLimit: model.max_output_tokens ?? 8_192,
    supportedGenerationMethods: model.kind === "text" || model.kind === "image"
      ? ["generateContent", "streamGenerateContent", "countTokens"]
      : [],
  };
}

function notFound(id: string) {
  return new GatewayError(
    "model_not_found",
    404,
    `The model '${id}' does not exist or is not available to this key`,
    { param: "model" },
  );
}

/** The model id a Gemini `pageToken` continues after (it is base64 of the last id sent). */
function pageTokenId(url: URL): string | undefined {
  const token = queryValue(url, "pageToken") || undefined;
  if (token === undefined) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(
      Uint8Array.from(atob(token), (char) => char.charCodeAt(0)),
    );
  } catch {
    throw invalidQueryParameter("pageToken", "is not a page token this API gave");
  }
}

const KEY_ANSWER = { "200": jsonAnswer("the JSON answer of the interface") };

const listModels = declareRoute({
  method: "get",
  path: "/v1/models",
  tag: "models",
  summary: "The key's models, in the list shape of the SDK family its credential form names",
  security: "any_key",
  errors: "openai",
  answers: KEY_ANSWER,
});

const readModel = declareRoute({
  method: "get",
  path: "/v1/models/{id}",
  registeredAs: "/v1/models/:id{[^:]+}",
  tag: "models",
  summary: "One of the key's models",
  security: "any_key",
  errors: "openai",
  answers: KEY_ANSWER,
});

const listGeminiModels = declareRoute({
  method: "get",
  path: "/v1beta/models",
  tag: "gemini",
  summary: "The key's models (Gemini list, `pageSize`/`pageToken`)",
  security: "gemini",
  errors: "gemini",
  answers: KEY_ANSWER,
});

const readGeminiModel = declareRoute({
  method: "get",
  path: "/v1beta/models/{id}",
  registeredAs: "/v1beta/models/:id{[^:]+}",
  tag: "gemini",
  summary: "One of the key's models (Gemini)",
  security: "gemini",
  errors: "gemini",
  answers: KEY_ANSWER,
});

/** The model-list sub-app. */
export function modelRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();

  const geminiList = (models: CatalogModel[], url: URL) => {
    const size = queryInteger(url, "pageSize", { min: 1, max: 1000, fallback: 50 });
    const after = pageTokenId(url);
    const start = after === undefined ? 0 : models.findIndex((m) => m.id > after);
    const page = start < 0 ? [] : models.slice(start, start + size);
    const more = start >= 0 && start + size < models.length;
    return {
      models: page.map(geminiModel),
      ...(more ? { nextPageToken: base64Utf8(page[page.length - 1].id) } : {}),
    };
  };

  serveRoute(app, listModels, requireKey(gateway), (c) => {
    const models = modelsForKey(gateway, c.get("key"));
    const clientInterface = c.get("context").interface;
    if (clientInterface === "gemini") {
      return c.json(geminiList(models, c.get("url")));
    }
    if (clientInterface === "anthropic") {
      const url = c.get("url");
      const limit = queryInteger(url, "limit", { min: 1, max: 1000, fallback: 20 });
      const afterId = queryValue(url, "after_id");
      const beforeId = queryValue(url, "before_id");
      let list = models;
      if (afterId) list = list.filter((m) => m.id > afterId);
      if (beforeId) list = list.filter((m) => m.id < beforeId).slice(-limit);
      const page = list.slice(0, limit);
      return c.json({
        data: page.map(anthropicModel),
        has_more: list.length > page.length,
        first_id: page[0]?.id ?? null,
        last_id: page[page.length - 1]?.id ?? null,
      });
    }
    return c.json({ object: "list", data: models.map(openAIModel) });
  });

  serveRoute(app, readModel, requireKey(gateway), (c) => {
    const id = c.req.param("id");
    const model = modelsForKey(gateway, c.get("key")).find((m) => m.id === id);
    if (!model) throw notFound(id);
    const clientInterface = c.get("context").interface;
    if (clientInterface === "gemini") return c.json(geminiModel(model));
    if (clientInterface === "anthropic") return c.json(anthropicModel(model));
    return c.json(openAIModel(model));
  });

  serveRoute(app, listGeminiModels, requireKey(gateway, "gemini"), (c) => {
    const models = modelsForKey(gateway, c.get("key"));
    return c.json(geminiList(models, c.get("url")));
  });

  serveRoute(app, readGeminiModel, requireKey(gateway, "gemini"), (c) => {
    const id = c.req.param("id").replace(/^models\//, "");
    const model = modelsForKey(gateway, c.get("key")).find((m) => m.id === id);
    if (!model) throw notFound(id);
    return c.json(geminiModel(model));
  });

  return app;
}
