/** Admin routes that read what happened: the request log. */

import { Hono } from "hono";
import type { Gateway } from "../../core/gateway.ts";
import type { AppEnv } from "../middleware.ts";
import { keyFilter, listed, listOptions } from "./shared.ts";

export function adminRecordRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  app.get("/admin/requests", async (c) => {
    const options = listOptions(c.get("url"));
    const key = keyFilter(c.get("url"));
    return c.json(await listed(options, () => gateway.requestLog.list(options, { key })));
  });
  return app;
}
