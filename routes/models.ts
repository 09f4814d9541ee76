/**
 * Model lists for the calling key, in the shape of the SDK family that asks (each family's shape
 * is its interface's, core/formats/<format>/model_list.ts): OpenAI by default, Anthropic for
 * Anthropic credentials, Gemini on /v1beta or Google credentials.
 */

import { Hono } from "hono";
import { callerPriceText } from "../core/billing/price_text.ts";
import type { ListedModel } from "../core/formats/gemini/model_list.ts";
import { keyMayUseModel } from "../core/channels/catalog.ts";
import { GatewayError } from "../core/errors.ts";
import type { Gateway } from "../core/gateway.ts";
import type { KeyRecord } from "../core/keys/key_schema.ts";
import { familyNamed } from "../core/formats/interfaces.ts";
import { GEMINI_FAMILY } from "../core/formats/gemini/interface.ts";
import type { ListQuery } from "../core/formats/text_interface.ts";
import { type AppEnv, requireKey } from "./middleware.ts";
import { invalidQueryParameter, queryInteger, queryValue } from "./params.ts";
import { declareRoute, jsonAnswer, serveRoute } from "./openapi/declare_route.ts";

/**
 * Models `key` may use that an enabled channel serves, sorted by id, each with the price the
 * key pays (its group's price tier) for the shapes that describe models.
 */
export function modelsForKey(gateway: Gateway, key: KeyRecord): ListedModel[] {
  const tier = gateway.priceTierOf(key);
  return gateway.registry.models
    .filter((model) =>
      model.enabled !== false && keyMayUseModel(key, model) &&
      gateway.registry.servesModel(model.id, key.group)
    )
    .sort((a, b) => a.id.localeCompare(b.id))
    .map((model) => ({ ...model, caller_price: callerPriceText(model, tier) }));
}

function notFound(id: string) {
  return new GatewayError(
    "model_not_found",
    404,
    `The model '${id}' does not exist or is not available to this key`,
    { param: "model" },
  );
}

/** The query of a list request, read strictly. */
function listQuery(url: URL): ListQuery {
  return {
    value: (name) => queryValue(url, name),
    integer: (name, range) => queryInteger(url, name, range),
    invalid: invalidQueryParameter,
  };
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

  serveRoute(app, listModels, requireKey(gateway), (c) => {
    const models = modelsForKey(gateway, c.get("key"));
    const family = familyNamed(c.get("context").interface);
    return c.json(family.modelList(models, listQuery(c.get("url"))));
  });

  serveRoute(app, readModel, requireKey(gateway), (c) => {
    const id = c.req.param("id");
    const model = modelsForKey(gateway, c.get("key")).find((m) => m.id === id);
    if (!model) throw notFound(id);
    return c.json(familyNamed(c.get("context").interface).model(model));
  });

  serveRoute(app, listGeminiModels, requireKey(gateway, GEMINI_FAMILY.name), (c) => {
    const models = modelsForKey(gateway, c.get("key"));
    return c.json(GEMINI_FAMILY.modelList(models, listQuery(c.get("url"))));
  });

  serveRoute(app, readGeminiModel, requireKey(gateway, GEMINI_FAMILY.name), (c) => {
    const id = c.req.param("id").replace(/^models\//, "");
    const model = modelsForKey(gateway, c.get("key")).find((m) => m.id === id);
    if (!model) throw notFound(id);
    return c.json(GEMINI_FAMILY.model(model));
  });

  return app;
}
