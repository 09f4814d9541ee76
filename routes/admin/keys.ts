/** Admin routes for client keys: create, list, read, change, rotate, delete, credit. */

import { Hono } from "hono";
import type { Gateway } from "../../core/gateway.ts";
import {
  creditInputSchema,
  keyInputSchema,
  keyPatchSchema,
  rotateInputSchema,
} from "../../core/keys/key_schema.ts";
import { KEY_SORTS, type KeyListQuery } from "../../core/keys/key_list.ts";
import type { AppEnv } from "../middleware.ts";
import { queryChoice, queryValue } from "../params.ts";
import { idempotencyKeyOf } from "../idempotency_key.ts";
import { parseJson, readLimitedText, validate } from "../validation.ts";
import { adminBody, keyId, listed, listOptions, timeParam } from "./shared.ts";

/** `GET /admin/keys`: paging, and `name_prefix`, `group`, `enabled`, `expires_before`, `sort`. */
export function keyListQuery(url: URL): KeyListQuery {
  const enabled = queryChoice(url, "enabled", { allowed: ["true", "false"], fallback: undefined });
  return {
    ...listOptions(url),
    name_prefix: queryValue(url, "name_prefix") || undefined,
    group: queryValue(url, "group") || undefined,
    enabled: enabled === undefined ? undefined : enabled === "true",
    expires_before: timeParam(url, "expires_before"),
    sort: queryChoice(url, "sort", { allowed: KEY_SORTS, fallback: "created" }),
  };
}

export function adminKeyRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  app.post("/admin/keys", async (c) => {
    const input = validate(keyInputSchema, await adminBody(c.req.raw));
    return c.json(await gateway.keys.create(input), 201);
  });
  app.get("/admin/keys", async (c) => {
    const query = keyListQuery(c.get("url"));
    return c.json(await listed(query, () => gateway.keys.list(query)));
  });
  app.get("/admin/keys/:id", async (c) => c.json(await gateway.keys.get(keyId(c))));
  app.patch("/admin/keys/:id", async (c) => {
    const id = keyId(c);
    const patch = validate(keyPatchSchema, await adminBody(c.req.raw));
    return c.json(await gateway.keys.update(id, patch));
  });
  app.post("/admin/keys/:id/rotate", async (c) => {
    const id = keyId(c);
    const idempotencyKey = idempotencyKeyOf(c.req.header("idempotency-key"));
    // The body is optional: no body rotates with the default grace.
    const text = await readLimitedText(c.req.raw, 1024 * 1024);
    const input = validate(rotateInputSchema, text.trim() === "" ? {} : parseJson(text));
    return c.json(
      await gateway.keys.rotate(id, { graceSeconds: input.grace_seconds, idempotencyKey }),
    );
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
