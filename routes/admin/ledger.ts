/** Admin routes for the ledger: its entries, and a key's entries checked against its balance. */

import { Hono } from "hono";
import { verifyLedger } from "../../core/billing/ledger_audit.ts";
import type { Gateway } from "../../core/gateway.ts";
import { walletOf } from "../../core/billing/ledger.ts";
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
  summary: "Ledger entries of one key's wallet (its account's) or of every wallet",
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
    // A key's ledger is its wallet's: its account's, shared with the account's other keys.
    const wallet = key === undefined ? undefined : walletOf(await gateway.keys.get(key));
    return c.json(await listed(options, () => gateway.ledger.list(wallet, options)));
  });
  serveRoute(app, verifyKeyLedger, async (c) => {
    const key = await gateway.keys.get(keyId(c));
    const verification = await verifyLedger(gateway.kv, walletOf(key));
    return c.json({ ...verification, key_id: key.id, wallet_id: walletOf(key) });
  });
  return app;
}
