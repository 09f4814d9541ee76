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
import {
  createdAnswer,
  deletedAnswer,
  jsonAnswer,
  pageAnswer,
  serveRoute,
} from "../openapi/declare_route.ts";
import { idParam } from "../params.ts";
import { validate } from "../validation.ts";
import {
  adminBody,
  adminRoute,
  LIST_QUERY,
  listed,
  listOptions,
  optionalAdminBody,
} from "./shared.ts";

const taskNotFound = (id: string) =>
  new GatewayError("task_not_found", 404, `No task has the id '${id}'`);
const deliveryNotFound = (id: string) =>
  new GatewayError("delivery_not_found", 404, `The endpoint has no delivery '${id}'`);

const listTaskDeliveries = adminRoute({
  method: "get",
  path: "/admin/tasks/{id}/deliveries",
  summary: "The webhook deliveries of a task's events, newest first",
  query: LIST_QUERY,
  answers: pageAnswer("deliveries"),
});

const createWebhook = adminRoute({
  method: "post",
  path: "/admin/webhooks",
  summary: "Register a webhook endpoint; its `secret` (whsec_…) is in this answer only",
  body: { name: "WebhookInput", schema: webhookCreateSchema },
  answers: createdAnswer("the endpoint's view with `secret`, shown once"),
});

const listWebhooks = adminRoute({
  method: "get",
  path: "/admin/webhooks",
  summary: "List webhook endpoints",
  query: LIST_QUERY,
  answers: pageAnswer("endpoint views"),
});

const readWebhook = adminRoute({
  method: "get",
  path: "/admin/webhooks/{id}",
  summary: "Read a webhook endpoint (never its secret)",
  answers: { "200": jsonAnswer("the endpoint's view") },
});

const updateWebhook = adminRoute({
  method: "patch",
  path: "/admin/webhooks/{id}",
  summary: "Change exactly the fields sent",
  body: { name: "WebhookPatch", schema: webhookPatchSchema },
  answers: { "200": jsonAnswer("the endpoint's view") },
});

const deleteWebhook = adminRoute({
  method: "delete",
  path: "/admin/webhooks/{id}",
  summary: "Delete a webhook endpoint (its delivery history stays until it expires)",
  answers: deletedAnswer,
});

const rotateWebhook = adminRoute({
  method: "post",
  path: "/admin/webhooks/{id}/rotate",
  summary: "A new secret (shown once); the old one signs beside it for `grace_seconds`",
  body: { name: "WebhookRotateInput", schema: webhookRotateSchema },
  answers: { "200": jsonAnswer("the endpoint's view with the new `secret`") },
});

const testWebhook = adminRoute({
  method: "post",
  path: "/admin/webhooks/{id}/test",
  summary: "Send test: a `webhook.test` delivery now, answered with its attempt",
  answers: { "200": jsonAnswer("the delivery") },
});

const listWebhookDeliveries = adminRoute({
  method: "get",
  path: "/admin/webhooks/{id}/deliveries",
  summary: "The endpoint's deliveries: status, attempts (latency, response code), next attempt",
  query: LIST_QUERY,
  answers: pageAnswer("deliveries"),
});

const redeliver = adminRoute({
  method: "post",
  path: "/admin/webhooks/{id}/deliveries/{delivery_id}/redeliver",
  summary: "Redeliver: one more attempt now, with the same webhook-id",
  answers: { "200": jsonAnswer("the delivery") },
});

export function adminWebhookRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  const webhooks = gateway.webhooks;
  const webhookId = (c: Parameters<typeof idParam>[0]) =>
    idParam(c, "id", { shape: "webhook", notFound: webhookNotFound });

  serveRoute(app, createWebhook, async (c) => {
    const input = validate(webhookCreateSchema, await adminBody(c.req.raw));
    return c.json(await webhooks.create(input), 201);
  });
  serveRoute(app, listWebhooks, async (c) => {
    const options = listOptions(c.get("url"));
    return c.json(await listed(options, () => webhooks.list(options)));
  });
  serveRoute(app, readWebhook, async (c) => c.json(await webhooks.get(webhookId(c))));
  serveRoute(app, updateWebhook, async (c) => {
    const id = webhookId(c);
    const patch = validate(webhookPatchSchema, await adminBody(c.req.raw));
    return c.json(await webhooks.update(id, patch));
  });
  serveRoute(app, deleteWebhook, async (c) => {
    await webhooks.delete(webhookId(c));
    return c.body(null, 204);
  });
  serveRoute(app, rotateWebhook, async (c) => {
    const id = webhookId(c);
    const input = validate(webhookRotateSchema, await optionalAdminBody(c.req.raw));
    return c.json(await webhooks.rotate(id, { graceSeconds: input.grace_seconds }));
  });
  serveRoute(app, testWebhook, async (c) => c.json(await webhooks.sendTest(webhookId(c))));
  serveRoute(app, listWebhookDeliveries, async (c) => {
    const id = webhookId(c);
    const options = listOptions(c.get("url"));
    return c.json(await listed(options, () => webhooks.deliveriesOfEndpoint(id, options)));
  });
  serveRoute(app, redeliver, async (c) => {
    const id = webhookId(c);
    const deliveryId = idParam(c, "delivery_id", { shape: "delivery", notFound: deliveryNotFound });
    return c.json(await webhooks.redeliver(id, deliveryId));
  });
  serveRoute(app, listTaskDeliveries, async (c) => {
    const id = idParam(c, "id", { shape: "task", notFound: taskNotFound });
    const options = listOptions(c.get("url"));
    if (!(await gateway.tasks.get(id))) throw taskNotFound(id);
    return c.json(await listed(options, () => webhooks.deliveriesOfTask(id, options)));
  });
  return app;
}
