/** Admin routes for client keys: create, list, read, change, delete, credit. */

import { Hono } from "hono";
import type { Gateway } from "../../core/gateway.ts";
import { creditInputSchema, keyInputSchema, keyPatchSchema } from "../../core/keys/key_schema.ts";
import type { AppEnv } from "../middleware.ts";
import { validate } from "../validation.ts";
import { adminBody, keyId, listed, listOptions } from "./shared.ts";

export function adminKeyRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  app.post("/admin/keys", async (c) => {
    const input = validate(keyInputSchema, await adminBody(c.req.raw));
    return c.json(await gateway.keys.create(input), 201);
  });
  app.get("/admin/keys", async (c) => {
    const options = listOptions(c.get("url"));
    return c.json(await listed(options, () => gateway.keys.list(options)));
  });
  app.get("/admin/keys/:id", async (c) => c.json(await gateway.keys.get(keyId(c))));
  app.patch("/admin/keys/:id", async (c) => {
    const id = keyId(c);
    const patch = validate(keyPatchSchema, await adminBody(c.req.raw));
    return c.json(await gateway.keys.update(id, patch));
  });
  app.delete("/admin/keys/:id", async (c) => {
    await gateway.keys.delete(keyId(c));
    return c.body(null, 204);
  });
  app.post("/admin/keys/:id/credit", async (c) => {
    const id = keyId(c);
    const input = validate(creditInputSchema, await adminBody(c.req.raw));
    await gateway.keys.get(id);
    const entry = await gateway.ledger.credit(id, input.amount, {
      note: input.note,
      ref: input.ref,
    });
    return c.json(entry, 201);
  });
  return app;
}
