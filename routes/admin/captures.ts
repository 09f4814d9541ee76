/** Admin routes for body capture: switched on and off per key, captured requests read by id. */

import { Hono } from "hono";
import { GatewayError } from "../../core/errors.ts";
import type { Gateway } from "../../core/gateway.ts";
import { captureInputSchema } from "../../core/telemetry/body_capture.ts";
import type { AppEnv } from "../middleware.ts";
import { jsonAnswer, serveRoute } from "../openapi/declare_route.ts";
import { validate } from "../validation.ts";
import { adminBody, adminRoute, keyId } from "./shared.ts";

const REQUEST_ID = /^req_[0-9A-Za-z]{1,64}$/;

const captureNotFound = (id: string) =>
  new GatewayError(
    "capture_not_found",
    404,
    `No captured bodies for request '${id}': its key had capture off, or the capture expired`,
  );

const startCapture = adminRoute({
  method: "post",
  path: "/admin/keys/{id}/capture",
  summary: "Capture the key's text request and response bodies for `minutes`",
  body: { name: "CaptureInput", schema: captureInputSchema },
  answers: { "200": jsonAnswer("{active, key_id, started_at, until}") },
});

const readCapture = adminRoute({
  method: "get",
  path: "/admin/keys/{id}/capture",
  summary: "Whether the key's bodies are captured, and until when",
  answers: { "200": jsonAnswer("{active, key_id, started_at?, until?}") },
});

const stopCapture = adminRoute({
  method: "delete",
  path: "/admin/keys/{id}/capture",
  summary: "Stop capturing the key's bodies",
  answers: { "204": { description: "stopped; no body" } },
});

const readCapturedRequest = adminRoute({
  method: "get",
  path: "/admin/requests/{id}/capture",
  summary: "The captured (redacted) bodies of one request",
  answers: { "200": jsonAnswer("the captured request") },
});

export function adminCaptureRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  serveRoute(app, startCapture, async (c) => {
    const id = keyId(c);
    const input = validate(captureInputSchema, await adminBody(c.req.raw));
    await gateway.keys.get(id);
    return c.json({ active: true, ...(await gateway.captures.enable(id, input)) });
  });
  serveRoute(app, readCapture, async (c) => {
    const id = keyId(c);
    await gateway.keys.get(id);
    const capture = await gateway.captures.status(id);
    return c.json(capture ? { active: true, ...capture } : { active: false, key_id: id });
  });
  serveRoute(app, stopCapture, async (c) => {
    const id = keyId(c);
    await gateway.keys.get(id);
    await gateway.captures.disable(id);
    return c.body(null, 204);
  });
  serveRoute(app, readCapturedRequest, async (c) => {
    const id = c.req.param("id");
    if (!REQUEST_ID.test(id)) throw captureNotFound(id.slice(0, 80));
    const captured = await gateway.captures.read(id);
    if (!captured) throw captureNotFound(id);
    return c.json(captured);
  });
  return app;
}
