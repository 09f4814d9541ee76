/** Admin routes for the model catalog. */

import { Hono } from "hono";
import { modelInputSchema, modelPatchSchema } from "../../core/channels/catalog.ts";
import type { Gateway } from "../../core/gateway.ts";
import type { AppEnv } from "../middleware.ts";
import { validate } from "../validation.ts";
import { adminBody, newModelId } from "./shared.ts";

export function adminModelRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  app.get("/admin/models", (c) => c.json({ data: gateway.registry.models, cursor: null }));
  app.get("/admin/models/:id", (c) => c.json(gateway.registry.getModel(c.req.param("id"))));
  app.put("/admin/models/:id", async (c) => {
    const id = newModelId(c.req.param("id"));
    const input = validate(modelInputSchema, await adminBody(c.req.raw));
    return c.json(await gateway.registry.putModel(id, input));
  });
  app.patch("/admin/models/:id", async (c) => {
    const patch = validate(modelPatchSchema, await adminBody(c.req.raw));
    return c.json(await gateway.registry.patchModel(c.req.param("id"), patch));
  });
  app.delete("/admin/models/:id", async (c) => {
    await gateway.registry.deleteModel(c.req.param("id"));
    return c.body(null, 204);
  });
  return app;
}
