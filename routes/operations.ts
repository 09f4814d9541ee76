/** GET / (what this service is), GET /healthz, GET /readyz and GET /metrics. */

import { Hono } from "hono";
import { GatewayError } from "../core/errors.ts";
import type { Gateway } from "../core/gateway.ts";
import { constantTimeEqual, sha256Hex } from "../core/util/ids.ts";
import { type AppEnv, authFailure } from "./middleware.ts";
import { GATEWAY_NAME, GATEWAY_VERSION } from "../core/version.ts";
import { declareRoute, jsonAnswer, serveRoute } from "./openapi/declare_route.ts";

/** What `GET /` (and `HEAD /`) answers: the service, its version, where its description is. */
export const SERVICE_INDEX = {
  name: GATEWAY_NAME,
  version: GATEWAY_VERSION,
  docs: "README.md and docs/ in the gateway's repository; the interfaces in /openapi.json",
  openapi: "/openapi.json",
  console: "/console",
};

const serviceIndex = (["get", "head"] as const).map((method) =>
  declareRoute({
    method,
    path: "/",
    tag: "operations",
    summary: "What this service is: {name, version, docs, openapi, console}",
    security: "none",
    errors: "openai",
    answers: { "200": jsonAnswer("{name, version, docs, openapi, console}") },
  })
);

const healthz = declareRoute({
  method: "get",
  path: "/healthz",
  tag: "operations",
  summary: "200 once ready, 503 while starting or stopping",
  security: "none",
  errors: "openai",
  answers: { "200": jsonAnswer("{status: ok}") },
});

const readyz = declareRoute({
  method: "get",
  path: "/readyz",
  tag: "operations",
  summary: "200 while the store answers a read and a write within its deadline; 503 while it " +
    "does not, or while starting or stopping",
  security: "none",
  errors: "openai",
  answers: {
    "200": jsonAnswer("{status: ready}"),
    "503": jsonAnswer("{status: starting | store_unavailable, reason?}"),
  },
});

const metrics = declareRoute({
  method: "get",
  path: "/metrics",
  tag: "operations",
  summary: "Prometheus metrics (a bearer token when GATEWAY_METRICS_TOKEN is set)",
  security: "metrics",
  errors: "openai",
  answers: { "200": { description: "Prometheus text format", contentType: "text/plain" } },
});

/** The operations sub-app. */
export function operationRoutes(gateway: Gateway, isReady: () => boolean) {
  const app = new Hono<AppEnv>();
  const metricsToken = gateway.options.metricsTokenHash;
  // Hono answers HEAD with the GET route, without the body.
  serveRoute(app, serviceIndex, (c) => c.json(SERVICE_INDEX));
  serveRoute(
    app,
    healthz,
    (c) => isReady() ? c.json({ status: "ok" }) : c.json({ status: "starting" }, 503),
  );
  // Liveness (/healthz) does not touch the store; readiness does.
  serveRoute(app, readyz, async (c) => {
    if (!isReady()) return c.json({ status: "starting" }, 503);
    const probe = await gateway.probeStore();
    return probe.ok
      ? c.json({ status: "ready" })
      : c.json({ status: "store_unavailable", reason: probe.reason }, 503);
  });
  serveRoute(app, metrics, async (c) => {
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
