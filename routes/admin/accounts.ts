/**
 * Admin routes for accounts: create, list (search, sort by balance, spend or last use), read,
 * change, suspend and resume, credit, and the account's keys and wallet ledger.
 */

import { Hono } from "hono";
import type { Gateway } from "../../core/gateway.ts";
import { accountInputSchema, accountPatchSchema } from "../../core/accounts/account_schema.ts";
import { ACCOUNT_SORTS, type AccountListQuery } from "../../core/accounts/account_list.ts";
import { creditInputSchema } from "../../core/keys/key_schema.ts";
import { verifyLedger } from "../../core/billing/ledger_audit.ts";
import type { AppEnv } from "../middleware.ts";
import {
  createdAnswer,
  enumQuery,
  integerQuery,
  jsonAnswer,
  pageAnswer,
  serveRoute,
  TEXT_QUERY,
} from "../openapi/declare_route.ts";
import { queryChoice, queryInteger, queryValue } from "../params.ts";
import { validate } from "../validation.ts";
import {
  accountId,
  adminBody,
  adminRoute,
  LIST_QUERY,
  listed,
  listOptions,
  optionalAdminBody,
} from "./shared.ts";

/** `GET /admin/accounts`: `q`, `group`, `enabled`, `sort`, `order`, `limit`, `cursor`. */
export function accountListQuery(url: URL): AccountListQuery {
  const enabled = queryChoice(url, "enabled", { allowed: ["true", "false"], fallback: undefined });
  return {
    q: queryValue(url, "q") || undefined,
    group: queryValue(url, "group") || undefined,
    enabled: enabled === undefined ? undefined : enabled === "true",
    sort: queryChoice(url, "sort", { allowed: ACCOUNT_SORTS, fallback: "created" }),
    order: queryChoice(url, "order", { allowed: ["asc", "desc"], fallback: undefined }),
    limit: queryInteger(url, "limit", { min: 1, max: 1000, fallback: 50 }),
    cursor: queryValue(url, "cursor") || undefined,
  };
}

const createAccount = adminRoute({
  method: "post",
  path: "/admin/accounts",
  summary: "Create an account (a customer with one wallet); an opening balance is a credit",
  body: { name: "AccountInput", schema: accountInputSchema },
  answers: createdAnswer("the account's view"),
});

const listAccounts = adminRoute({
  method: "get",
  path: "/admin/accounts",
  summary: "List accounts: search by name or id, sort by balance, spend or last use",
  query: [
    { name: "q", description: "part of the name or id (any case)", schema: TEXT_QUERY },
    { name: "group", description: "accounts of this group", schema: TEXT_QUERY },
    { name: "enabled", description: "`true` or `false`", schema: enumQuery(["true", "false"]) },
    {
      name: "sort",
      description: "`created` (default), `name`, `balance`, `spend` (today) or `last_used`",
      schema: enumQuery(ACCOUNT_SORTS),
    },
    { name: "order", description: "`asc` or `desc`", schema: enumQuery(["asc", "desc"]) },
    {
      name: "limit",
      description: "accounts a page, 1-1000 (default 50)",
      schema: integerQuery(1, 1000),
    },
    { name: "cursor", description: "the `cursor` of the previous page", schema: TEXT_QUERY },
  ],
  answers: pageAnswer("account views"),
});

const readAccount = adminRoute({
  method: "get",
  path: "/admin/accounts/{id}",
  summary: "Read an account: wallet balance, keys, spend, last use",
  answers: { "200": jsonAnswer("the account's view") },
});

const updateAccount = adminRoute({
  method: "patch",
  path: "/admin/accounts/{id}",
  summary: "Change exactly the fields sent (name, group, credit_limit, unlimited, enabled)",
  body: { name: "AccountPatch", schema: accountPatchSchema },
  answers: { "200": jsonAnswer("the account's view") },
});

const suspendAccount = adminRoute({
  method: "post",
  path: "/admin/accounts/{id}/suspend",
  summary: "Suspend: every key of the account is refused (403 account_disabled)",
  answers: { "200": jsonAnswer("the account's view") },
});

const resumeAccount = adminRoute({
  method: "post",
  path: "/admin/accounts/{id}/resume",
  summary: "Resume a suspended account",
  answers: { "200": jsonAnswer("the account's view") },
});

const creditAccount = adminRoute({
  method: "post",
  path: "/admin/accounts/{id}/credit",
  summary: "Add (or, negative, take) money from the wallet; a `ref` makes it happen once",
  body: { name: "CreditInput", schema: creditInputSchema },
  answers: createdAnswer("the ledger entry"),
});

const accountKeys = adminRoute({
  method: "get",
  path: "/admin/accounts/{id}/keys",
  summary: "The account's keys",
  answers: { "200": jsonAnswer("{data: key views}") },
});

const accountLedger = adminRoute({
  method: "get",
  path: "/admin/accounts/{id}/ledger",
  summary: "The account's wallet ledger, each entry naming its key (null: the wallet's own)",
  query: LIST_QUERY,
  answers: pageAnswer("ledger entries {id, key_id, wallet_id, type, amount, balance_after, …}"),
});

const verifyAccountLedger = adminRoute({
  method: "get",
  path: "/admin/accounts/{id}/ledger/verify",
  summary: "The wallet's entries summed against its balance",
  answers: {
    "200": jsonAnswer(
      "{account_id, wallet_id, balance, entries_sum, entries, ok, holds_open, held_open, leases_open, leased_open}",
    ),
  },
});

export function adminAccountRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  serveRoute(app, createAccount, async (c) => {
    const input = validate(accountInputSchema, await adminBody(c.req.raw));
    const record = await gateway.accounts.create(input);
    return c.json(await gateway.accounts.get(record.id), 201);
  });
  serveRoute(app, listAccounts, async (c) => {
    return c.json(await gateway.accounts.list(accountListQuery(c.get("url"))));
  });
  serveRoute(app, readAccount, async (c) => c.json(await gateway.accounts.get(accountId(c))));
  serveRoute(app, updateAccount, async (c) => {
    const id = accountId(c);
    const patch = validate(accountPatchSchema, await adminBody(c.req.raw));
    return c.json(await gateway.accounts.update(id, patch));
  });
  serveRoute(app, suspendAccount, async (c) => {
    const id = accountId(c);
    await optionalAdminBody(c.req.raw);
    return c.json(await gateway.accounts.update(id, { enabled: false }));
  });
  serveRoute(app, resumeAccount, async (c) => {
    const id = accountId(c);
    await optionalAdminBody(c.req.raw);
    return c.json(await gateway.accounts.update(id, { enabled: true }));
  });
  serveRoute(app, creditAccount, async (c) => {
    const id = accountId(c);
    const input = validate(creditInputSchema, await adminBody(c.req.raw));
    const entry = await gateway.accounts.credit(id, input.amount, {
      note: input.note,
      ref: input.ref,
    });
    return c.json(entry, 201);
  });
  serveRoute(app, accountKeys, async (c) => {
    const id = accountId(c);
    await gateway.accounts.record(id);
    const data = await gateway.keys.views(await gateway.accounts.keyIdsOf(id));
    return c.json({ data });
  });
  serveRoute(app, accountLedger, async (c) => {
    const account = await gateway.accounts.record(accountId(c));
    const options = listOptions(c.get("url"));
    return c.json(await listed(options, () => gateway.ledger.list(account.wallet_id, options)));
  });
  serveRoute(app, verifyAccountLedger, async (c) => {
    const account = await gateway.accounts.record(accountId(c));
    const verification = await verifyLedger(gateway.kv, account.wallet_id);
    return c.json({ ...verification, account_id: account.id, wallet_id: account.wallet_id });
  });
  return app;
}
