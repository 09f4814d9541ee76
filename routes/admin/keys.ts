/** Admin routes for client keys: create, list, read, change, rotate, delete, credit. */

import { Hono } from "hono";
import type { Gateway } from "../../core/gateway.ts";
import { GatewayError } from "../../core/errors.ts";
import { walletOf } from "../../core/billing/ledger.ts";
import {
  creditInputSchema,
  keyInputSchema,
  keyPatchSchema,
  rotateInputSchema,
} from "../../core/keys/key_schema.ts";
import { KEY_SORTS, type KeyListQuery } from "../../core/keys/key_list.ts";
import type { AppEnv } from "../middleware.ts";
import {
  createdAnswer,
  deletedAnswer,
  enumQuery,
  integerQuery,
  jsonAnswer,
  pageAnswer,
  serveRoute,
  TEXT_QUERY,
  TIME_QUERY,
} from "../openapi/declare_route.ts";
import { queryChoice, queryValue } from "../params.ts";
import { idempotencyKeyOf } from "../idempotency_key.ts";
import { parseJson, readLimitedText, validate } from "../validation.ts";
import { adminBody, adminRoute, keyId, listed, listOptions, timeParam } from "./shared.ts";

/** `GET /admin/keys`: paging, and `name_prefix`, `group`, `enabled`, `expires_before`, `sort`. */
export function keyListQuery(url: URL): KeyListQuery {
  const enabled = queryChoice(url, "enabled", { allowed: ["true", "false"], fallback: undefined });
  return {
    ...listOptions(url),
    name_prefix: queryValue(url, "name_prefix") || undefined,
    group: queryValue(url, "group") || undefined,
    account_id: queryValue(url, "account_id") || undefined,
    enabled: enabled === undefined ? undefined : enabled === "true",
    expires_before: timeParam(url, "expires_before"),
    sort: queryChoice(url, "sort", { allowed: KEY_SORTS, fallback: "created" }),
  };
}

const createKey = adminRoute({
  method: "post",
  path: "/admin/keys",
  summary: "Create a key; the secret `key` is in this answer only",
  body: { name: "KeyInput", schema: keyInputSchema },
  answers: createdAnswer("the key's view with `key`, the secret, shown once"),
});

const listKeys = adminRoute({
  method: "get",
  path: "/admin/keys",
  summary: "List keys, filtered and sorted",
  query: [
    {
      name: "limit",
      description: "keys a page, 1-1000 (default 50)",
      schema: integerQuery(1, 1000),
    },
    { name: "cursor", description: "the `cursor` of the previous page", schema: TEXT_QUERY },
    {
      name: "order",
      description: "`desc` (default) or `asc`",
      schema: enumQuery(["asc", "desc"]),
    },
    { name: "name_prefix", description: "keys whose name starts with this", schema: TEXT_QUERY },
    { name: "group", description: "keys of this group", schema: TEXT_QUERY },
    { name: "account_id", description: "keys of this account", schema: TEXT_QUERY },
    {
      name: "enabled",
      description: "`true` or `false`",
      schema: enumQuery(["true", "false"]),
    },
    {
      name: "expires_before",
      description: "keys expiring before this ISO 8601 time",
      schema: TIME_QUERY,
    },
    {
      name: "sort",
      description: "`created` (default), `spend` (today) or `last_used`",
      schema: enumQuery(["created", "spend", "last_used"]),
    },
  ],
  answers: pageAnswer("key views"),
});

const readKey = adminRoute({
  method: "get",
  path: "/admin/keys/{id}",
  summary: "Read a key",
  answers: { "200": jsonAnswer("the key's view (no secret, no hash)") },
});

const updateKey = adminRoute({
  method: "patch",
  path: "/admin/keys/{id}",
  summary: "Change exactly the fields sent",
  body: { name: "KeyPatch", schema: keyPatchSchema },
  answers: { "200": jsonAnswer("the key's view") },
});

const deleteKey = adminRoute({
  method: "delete",
  path: "/admin/keys/{id}",
  summary: "Delete a key (its ledger stays)",
  answers: deletedAnswer,
});

const rotateKey = adminRoute({
  method: "post",
  path: "/admin/keys/{id}/rotate",
  summary:
    "A new secret (shown once); the old one works until the grace ends; idempotent under Idempotency-Key",
  body: { name: "RotateInput", schema: rotateInputSchema },
  answers: { "200": jsonAnswer("the key's view with the new `key`") },
});

const creditKey = adminRoute({
  method: "post",
  path: "/admin/keys/{id}/credit",
  summary: "Add (or, negative, take) money; a `ref` makes it happen once",
  body: { name: "CreditInput", schema: creditInputSchema },
  answers: createdAnswer("the ledger entry"),
});

/** A key made in an account takes its group, limit and balance from it: naming them is a 400. */
export function refuseAccountFields(body: unknown): void {
  const named = ["group", "balance", "credit_limit", "unlimited"].filter((field) =>
    Object.hasOwn(body as object, field)
  );
  if (!named.length) return;
  throw new GatewayError(
    "invalid_request",
    400,
    `A key made in an account (account_id) takes ${named.join(", ")} from the account; ` +
      "leave them out, or change them on the account (PATCH /admin/accounts/{id}, " +
      "POST /admin/accounts/{id}/credit)",
    { param: named[0] },
  );
}

export function adminKeyRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  serveRoute(app, createKey, async (c) => {
    const body = await adminBody(c.req.raw);
    const input = validate(keyInputSchema, body);
    if (input.account_id) refuseAccountFields(body);
    return c.json(await gateway.keys.create(input), 201);
  });
  serveRoute(app, listKeys, async (c) => {
    const query = keyListQuery(c.get("url"));
    return c.json(await listed(query, () => gateway.keys.list(query)));
  });
  serveRoute(app, readKey, async (c) => c.json(await gateway.keys.get(keyId(c))));
  serveRoute(app, updateKey, async (c) => {
    const id = keyId(c);
    const patch = validate(keyPatchSchema, await adminBody(c.req.raw));
    return c.json(await gateway.keys.update(id, patch));
  });
  serveRoute(app, rotateKey, async (c) => {
    const id = keyId(c);
    const idempotencyKey = idempotencyKeyOf(c.req.header("idempotency-key"));
    // The body is optional: no body rotates with the default grace.
    const text = await readLimitedText(c.req.raw, 1024 * 1024);
    const input = validate(rotateInputSchema, text.trim() === "" ? {} : parseJson(text));
    return c.json(
      await gateway.keys.rotate(id, { graceSeconds: input.grace_seconds, idempotencyKey }),
    );
  });
  serveRoute(app, deleteKey, async (c) => {
    await gateway.keys.delete(keyId(c));
    return c.body(null, 204);
  });
  serveRoute(app, creditKey, async (c) => {
    const id = keyId(c);
    const input = validate(creditInputSchema, await adminBody(c.req.raw));
    const key = await gateway.keys.get(id);
    const entry = await gateway.ledger.credit(walletOf(key), input.amount, {
      note: input.note,
      ref: input.ref,
    });
    return c.json(entry, 201);
  });
  return app;
}
