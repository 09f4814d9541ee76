/** Admin routes that read what happened: the ledger, tasks (the request log: requests.ts). */

import { Hono } from "hono";
import type { Gateway } from "../../core/gateway.ts";
import type { AppEnv } from "../middleware.ts";
import { keyFilter, listed, listOptions } from "./shared.ts";

export function adminRecordRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  app.get("/admin/ledger", async (c) => {
    const options = listOptions(c.get("url"));
    const key = keyFilter(c.get("url"));
    return c.json(await listed(options, () => gateway.ledger.list(key, options)));
  });
  app.get("/admin/tasks", async (c) => {
    const options = listOptions(c.get("url"));
    return c.json(await listed(options, () => gateway.tasks.list(options)));
  });
  return app;
}
