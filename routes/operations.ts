/** GET / (what this service is), GET /healthz and GET /metrics. */

import { Hono } from "hono";
import { GatewayError } from "../core/errors.ts";
import type { Gateway } from "../core/gateway.ts";
import { constantTimeEqual, sha256Hex } from "../core/util/ids.ts";
import { type AppEnv, authFailure } from "./middleware.ts";
import { GATEWAY_NAME, GATEWAY_VERSION } from "../core/version.ts";

/** What `GET /` (and `HEAD /`) answers: the service, its version, where its description is. */
export const SERVICE_INDEX = {
  name: GATEWAY_NAME,
  version: GATEWAY_VERSION,
  docs: "README.md and docs/ in the gateway's repository; the interfaces in /openapi.json",
  openapi: "/openapi.json",
  console: "/console",
};

/** The operations sub-app. */
export function operationRoutes(gateway: Gateway, isReady: () => boolean) {
  const app = new Hono<AppEnv>();
  const metricsToken = gateway.options.metricsTokenHash;
  // Hono answers HEAD with the GET route, without the body.
  app.get("/", (c) => c.json(SERVICE_INDEX));
  app.get(
    "/healthz",
    (c) => isReady() ? c.json({ status: "ok" }) : c.json({ status: "starting" }, 503),
  );
  app.get("/metrics", async (c) => {
    if (metricsToken) {
      const presented = c.req.header("authorization")?.match(/^Bearer\s+(\S+)$/i)?.[1];
      if (!presented || !constantTimeEqual(await sha256Hex(presented), metricsToken)) {
        throw authFailure(
          c,
          new GatewayError(
            "invalid_metrics_token",
            401,
            "GET /metrics needs 'Authorization: Bearer <GATEWAY_METRICS_TOKEN>'",
          ),
        );
      }
    }
    return c.text(gateway.metrics.render(), 200, { "content-type": "text/plain; version=0.0.4" });
  });
  return app;
}
