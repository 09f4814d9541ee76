/** Admin routes for the ledger: its entries, and a key's entries checked against its balance. */

import { Hono } from "hono";
import { verifyLedger } from "../../core/billing/ledger_audit.ts";
import type { Gateway } from "../../core/gateway.ts";
import type { AppEnv } from "../middleware.ts";
import { keyFilter, keyId, listed, listOptions } from "./shared.ts";

export function adminLedgerRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  app.get("/admin/ledger", async (c) => {
    const options = listOptions(c.get("url"));
    const key = keyFilter(c.get("url"));
    return c.json(await listed(options, () => gateway.ledger.list(key, options)));
  });
  app.get("/admin/keys/:id/ledger/verify", async (c) => {
    const id = keyId(c);
    await gateway.keys.get(id);
    return c.json(await verifyLedger(gateway.kv, id));
  });
  return app;
}
