/**
 * The account API's keys: list, create (the secret in the answer only), read, change, rotate
 * with grace, delete. An owner manages every key of the account, a member the keys they made;
 * any other id answers 404 as an unknown one would.
 */

import { Hono } from "hono";
import { GatewayError } from "../../core/errors.ts";
import type { AccountArea } from "../../core/account_area/account_area.ts";
import {
  memberKeyInputSchema,
  memberKeyPatchSchema,
} from "../../core/account_area/member_key_schema.ts";
import { rotateInputSchema } from "../../core/keys/key_schema.ts";
import type { AppEnv } from "../middleware.ts";
import { createdAnswer, deletedAnswer, jsonAnswer, serveRoute } from "../openapi/declare_route.ts";
import { idParam } from "../params.ts";
import { idempotencyKeyOf } from "../idempotency_key.ts";
import { parseJson, readLimitedText, validate } from "../validation.ts";
import { ACCOUNT_BODY_LIMIT, accountBody, accountRoute } from "./account_route.ts";

const listKeys = accountRoute({
  method: "get",
  path: "/v1/account/keys",
  summary: "The keys you manage (an owner: all the account's; a member: the keys they made)",
  answers: { "200": jsonAnswer("`{data: [key]}`, newest first; no secrets") },
});

const createKey = accountRoute({
  method: "post",
  path: "/v1/account/keys",
  summary: "Make a key in the account; the secret `key` is in this answer only",
  body: { name: "AccountKeyInput", schema: memberKeyInputSchema },
  answers: createdAnswer("the key with `key`, the secret, shown once"),
});

const readKey = accountRoute({
  method: "get",
  path: "/v1/account/keys/{id}",
  summary: "One key you manage",
  answers: { "200": jsonAnswer("the key; no secret") },
});

const updateKey = accountRoute({
  method: "patch",
  path: "/v1/account/keys/{id}",
  summary: "Change the fields named (null clears one); models must be among the account's",
  body: { name: "AccountKeyPatch", schema: memberKeyPatchSchema },
  answers: { "200": jsonAnswer("the changed key") },
});

const deleteKey = accountRoute({
  method: "delete",
  path: "/v1/account/keys/{id}",
  summary: "Delete a key; its requests and ledger entries stay",
  answers: deletedAnswer,
});

const rotateKey = accountRoute({
  method: "post",
  path: "/v1/account/keys/{id}/rotate",
  summary:
    "A new secret (shown once); the old one works for `grace_seconds` (default 24 h); idempotent under Idempotency-Key",
  body: { name: "AccountKeyRotate", schema: rotateInputSchema },
  answers: { "200": jsonAnswer("the key with `key`, the new secret, shown once") },
});

const keyNotFound = (id: string) =>
  new GatewayError("key_not_found", 404, `No key of this account has the id '${id}'`);

const keyIdOf = (c: Parameters<typeof idParam>[0]) =>
  idParam(c, "id", { shape: "key", notFound: keyNotFound });

export function accountKeyRoutes(area: AccountArea) {
  const app = new Hono<AppEnv>();
  serveRoute(app, listKeys, async (c) => c.json({ data: await area.keys(c.get("actor")) }));
  serveRoute(app, createKey, async (c) => {
    const input = validate(memberKeyInputSchema, await accountBody(c.req.raw));
    return c.json(await area.createKey(c.get("actor"), input), 201);
  });
  serveRoute(app, readKey, async (c) => c.json(await area.key(c.get("actor"), keyIdOf(c))));
  serveRoute(app, updateKey, async (c) => {
    const id = keyIdOf(c);
    const patch = validate(memberKeyPatchSchema, await accountBody(c.req.raw));
    return c.json(await area.updateKey(c.get("actor"), id, patch));
  });
  serveRoute(app, deleteKey, async (c) => {
    await area.deleteKey(c.get("actor"), keyIdOf(c));
    return c.body(null, 204);
  });
  serveRoute(app, rotateKey, async (c) => {
    const id = keyIdOf(c);
    const idempotencyKey = idempotencyKeyOf(c.req.header("idempotency-key"));
    // The body is optional: no body rotates with the default grace.
    const text = await readLimitedText(c.req.raw, ACCOUNT_BODY_LIMIT);
    const input = validate(rotateInputSchema, text.trim() === "" ? {} : parseJson(text));
    return c.json(
      await area.rotateKey(c.get("actor"), id, {
        graceSeconds: input.grace_seconds,
        idempotencyKey,
      }),
    );
  });
  return app;
}
