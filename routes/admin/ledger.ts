/** Admin routes for the ledger: its entries, and a key's entries checked against its balance. */

import { Hono } from "hono";
import { verifyLedger } from "../../core/billing/ledger_audit.ts";
import type { Gateway } from "../../core/gateway.ts";
import type { AppEnv } from "../middleware.ts";
import { jsonAnswer, pageAnswer, serveRoute } from "../openapi/declare_route.ts";
import {
  adminRoute,
  KEY_FILTER,
  keyFilter,
  keyId,
  LIST_QUERY,
  listed,
  listOptions,
} from "./shared.ts";

const listLedger = adminRoute({
  method: "get",
  path: "/admin/ledger",
  summary: "Ledger entries of one key or every key",
  query: [...LIST_QUERY, KEY_FILTER],
  answers: pageAnswer("ledger entries {id, key_id, type, amount, balance_after, ref, at, …}"),
});

const verifyKeyLedger = adminRoute({
  method: "get",
  path: "/admin/keys/{id}/ledger/verify",
  summary: "A key's ledger entries summed against its balance",
  answers: {
    "200": jsonAnswer(
      "{key_id, balance, entries_sum, entries, ok, holds_open, held_open, leases_open, leased_open}",
    ),
  },
});

export function adminLedgerRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  serveRoute(app, listLedger, async (c) => {
    const options = listOptions(c.get("url"));
    const key = keyFilter(c.get("url"));
    return c.json(await listed(options, () => gateway.ledger.list(key, options)));
  });
  serveRoute(app, verifyKeyLedger, async (c) => {
    const id = keyId(c);
    await gateway.keys.get(id);
    return c.json(await verifyLedger(gateway.kv, id));
  });
  return app;
}
