/**
 * Admin routes for webhook endpoints: CRUD, secret rotation, Send test, delivery history per
 * endpoint and per task, Redeliver. Each calls one function of the webhooks service.
 */

import { Hono } from "hono";
import { GatewayError } from "../../core/errors.ts";
import type { Gateway } from "../../core/gateway.ts";
import { webhookNotFound } from "../../core/webhooks/endpoint_store.ts";
import {
  webhookCreateSchema,
  webhookPatchSchema,
  webhookRotateSchema,
} from "../../core/webhooks/endpoint_schema.ts";
import type { AppEnv } from "../middleware.ts";
import { idParam } from "../params.ts";
import { validate } from "../validation.ts";
import { adminBody, listed, listOptions, optionalAdminBody } from "./shared.ts";

const taskNotFound = (id: string) =>
  new GatewayError("task_not_found", 404, `No task has the id '${id}'`);
const deliveryNotFound = (id: string) =>
  new GatewayError("delivery_not_found", 404, `The endpoint has no delivery '${id}'`);

export function adminWebhookRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  const webhooks = gateway.webhooks;
  const webhookId = (c: Parameters<typeof idParam>[0]) =>
    idParam(c, "id", { shape: "webhook", notFound: webhookNotFound });

  app.post("/admin/webhooks", async (c) => {
    const input = validate(webhookCreateSchema, await adminBody(c.req.raw));
    return c.json(await webhooks.create(input), 201);
  });
  app.get("/admin/webhooks", async (c) => {
    const options = listOptions(c.get("url"));
    return c.json(await listed(options, () => webhooks.list(options)));
  });
  app.get("/admin/webhooks/:id", async (c) => c.json(await webhooks.get(webhookId(c))));
  app.patch("/admin/webhooks/:id", async (c) => {
    const id = webhookId(c);
    const patch = validate(webhookPatchSchema, await adminBody(c.req.raw));
    return c.json(await webhooks.update(id, patch));
  });
  app.delete("/admin/webhooks/:id", async (c) => {
    await webhooks.delete(webhookId(c));
    return c.body(null, 204);
  });
  app.post("/admin/webhooks/:id/rotate", async (c) => {
    const id = webhookId(c);
    const input = validate(webhookRotateSchema, await optionalAdminBody(c.req.raw));
    return c.json(await webhooks.rotate(id, { graceSeconds: input.grace_seconds }));
  });
  app.post("/admin/webhooks/:id/test", async (c) => c.json(await webhooks.sendTest(webhookId(c))));
  app.get("/admin/webhooks/:id/deliveries", async (c) => {
    const id = webhookId(c);
    const options = listOptions(c.get("url"));
    return c.json(await listed(options, () => webhooks.deliveriesOfEndpoint(id, options)));
  });
  app.post("/admin/webhooks/:id/deliveries/:delivery_id/redeliver", async (c) => {
    const id = webhookId(c);
    const deliveryId = idParam(c, "delivery_id", { shape: "delivery", notFound: deliveryNotFound });
    return c.json(await webhooks.redeliver(id, deliveryId));
  });
  app.get("/admin/tasks/:id/deliveries", async (c) => {
    const id = idParam(c, "id", { shape: "task", notFound: taskNotFound });
    const options = listOptions(c.get("url"));
    if (!(await gateway.tasks.get(id))) throw taskNotFound(id);
    return c.json(await listed(options, () => webhooks.deliveriesOfTask(id, options)));
  });
  return app;
}
