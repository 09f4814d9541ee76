/** Admin routes for the model catalog. */

import { Hono } from "hono";
import { modelInputSchema, modelPatchSchema } from "../../core/channels/catalog.ts";
import type { Gateway } from "../../core/gateway.ts";
import type { AppEnv } from "../middleware.ts";
import { deletedAnswer, jsonAnswer, pageAnswer, serveRoute } from "../openapi/declare_route.ts";
import { validate } from "../validation.ts";
import { adminBody, adminRoute, newModelId } from "./shared.ts";

const listModels = adminRoute({
  method: "get",
  path: "/admin/models",
  summary: "The whole catalog",
  answers: pageAnswer("catalog entries"),
});

const readModel = adminRoute({
  method: "get",
  path: "/admin/models/{id}",
  summary: "Read a catalog entry",
  answers: { "200": jsonAnswer("the catalog entry") },
});

const putModel = adminRoute({
  method: "put",
  path: "/admin/models/{id}",
  summary: "Write a catalog entry whole (kind, groups, price, limits)",
  body: { name: "ModelInput", schema: modelInputSchema },
  answers: { "200": jsonAnswer("the catalog entry") },
});

const updateModel = adminRoute({
  method: "patch",
  path: "/admin/models/{id}",
  summary: "Change exactly the fields sent (price, enabled, …)",
  body: { name: "ModelPatch", schema: modelPatchSchema },
  answers: { "200": jsonAnswer("the catalog entry") },
});

const deleteModel = adminRoute({
  method: "delete",
  path: "/admin/models/{id}",
  summary: "Delete a catalog entry (409 while a channel serves it)",
  answers: deletedAnswer,
});

export function adminModelRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  serveRoute(app, listModels, (c) => c.json({ data: gateway.registry.models, cursor: null }));
  serveRoute(app, readModel, (c) => c.json(gateway.registry.getModel(c.req.param("id"))));
  serveRoute(app, putModel, async (c) => {
    const id = newModelId(c.req.param("id"));
    const input = validate(modelInputSchema, await adminBody(c.req.raw));
    return c.json(await gateway.registry.putModel(id, input));
  });
  serveRoute(app, updateModel, async (c) => {
    const patch = validate(modelPatchSchema, await adminBody(c.req.raw));
    return c.json(await gateway.registry.patchModel(c.req.param("id"), patch));
  });
  serveRoute(app, deleteModel, async (c) => {
    await gateway.registry.deleteModel(c.req.param("id"));
    return c.body(null, 204);
  });
  return app;
}
