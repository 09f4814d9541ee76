/** Admin routes for body capture: switched on and off per key, captured requests read by id. */

import { Hono } from "hono";
import { GatewayError } from "../../core/errors.ts";
import type { Gateway } from "../../core/gateway.ts";
import { captureInputSchema } from "../../core/telemetry/body_capture.ts";
import type { AppEnv } from "../middleware.ts";
import { validate } from "../validation.ts";
import { adminBody, keyId } from "./shared.ts";

const REQUEST_ID = /^req_[0-9A-Za-z]{1,64}$/;

const captureNotFound = (id: string) =>
  new GatewayError(
    "capture_not_found",
    404,
    `No captured bodies for request '${id}': its key had capture off, or the capture expired`,
  );

export function adminCaptureRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  app.post("/admin/keys/:id/capture", async (c) => {
    const id = keyId(c);
    const input = validate(captureInputSchema, await adminBody(c.req.raw));
    await gateway.keys.get(id);
    return c.json({ active: true, ...(await gateway.captures.enable(id, input)) });
  });
  app.get("/admin/keys/:id/capture", async (c) => {
    const id = keyId(c);
    await gateway.keys.get(id);
    const capture = await gateway.captures.status(id);
    return c.json(capture ? { active: true, ...capture } : { active: false, key_id: id });
  });
  app.delete("/admin/keys/:id/capture", async (c) => {
    const id = keyId(c);
    await gateway.keys.get(id);
    await gateway.captures.disable(id);
    return c.body(null, 204);
  });
  app.get("/admin/requests/:id/capture", async (c) => {
    const id = c.req.param("id");
    if (!REQUEST_ID.test(id)) throw captureNotFound(id.slice(0, 80));
    const captured = await gateway.captures.read(id);
    if (!captured) throw captureNotFound(id);
    return c.json(captured);
  });
  return app;
}
