/** GET /healthz and GET /metrics. */

import { Hono } from "hono";
import type { Gateway } from "../core/gateway.ts";
import type { AppEnv } from "./middleware.ts";

/** The operations sub-app. */
export function operationRoutes(gateway: Gateway, isReady: () => boolean) {
  const app = new Hono<AppEnv>();
  app.get(
    "/healthz",
    (c) => isReady() ? c.json({ status: "ok" }) : c.json({ status: "starting" }, 503),
  );
  app.get(
    "/metrics",
    (c) => c.text(gateway.metrics.render(), 200, { "content-type": "text/plain; version=0.0.4" }),
  );
  return app;
}
