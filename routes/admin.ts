/** The admin JSON API under /admin (design.md §1). Bearer GATEWAY_ADMIN_TOKEN. */

import { Hono } from "hono";
import { isAdminToken } from "../core/keys/admin_token.ts";
import { modelInputSchema, modelPatchSchema } from "../core/channels/catalog.ts";
import {
  channelCreateSchema,
  channelPatchBodySchema,
  publicChannel,
} from "../core/channels/channel_schema.ts";
import { GatewayError } from "../core/errors.ts";
import type { Gateway } from "../core/gateway.ts";
import type { ListOptions } from "../core/kv/list_options.ts";
import { creditInputSchema, keyInputSchema, keyPatchSchema } from "../core/keys/key_schema.ts";
import type { AppEnv } from "./middleware.ts";
import { readJsonBody, validate } from "./validation.ts";

const ADMIN_BODY_LIMIT = 1024 * 1024;

function timeParam(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value === "") return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) {
    throw new GatewayError(
      "invalid_request",
      400,
      `${name} must be an ISO 8601 time such as 2026-11-24T10:00:00Z, not '${value}'`,
      { param: name },
    );
  }
  return ms;
}

/** `?cursor=&limit=&order=asc|desc&since=&until=` of an admin list; newest first by default. */
function listOptions(query: (name: string) => string | undefined): ListOptions {
  const limit = Number(query("limit") ?? "50");
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new GatewayError("invalid_request", 400, "limit must be an integer from 1 to 1000", {
      param: "limit",
    });
  }
  const order = query("order") ?? "desc";
  if (order !== "asc" && order !== "desc") {
    throw new GatewayError("invalid_request", 400, "order must be 'asc' or 'desc'", {
      param: "order",
    });
  }
  return {
    cursor: query("cursor") || undefined,
    limit,
    order,
    since: timeParam("since", query("since")),
    until: timeParam("until", query("until")),
  };
}

/** The admin sub-app. */
export function adminRoutes(gateway: Gateway, adminTokenHash: string) {
  const app = new Hono<AppEnv>();

  app.use("/admin/*", async function adminAuth(c, next) {
    const token = c.req.header("authorization")?.match(/^Bearer\s+(\S+)$/i)?.[1];
    if (!token || !(await isAdminToken(token, adminTokenHash))) {
      throw new GatewayError(
        "invalid_admin_token",
        401,
        "Admin endpoints need 'Authorization: Bearer <GATEWAY_ADMIN_TOKEN>'",
      );
    }
    await next();
  });

  const body = (request: Request) => readJsonBody(request, ADMIN_BODY_LIMIT);

  // keys
  app.post("/admin/keys", async (c) => {
    const input = validate(keyInputSchema, await body(c.req.raw));
    return c.json(await gateway.keys.create(input), 201);
  });
  app.get("/admin/keys", async (c) => {
    return c.json(await gateway.keys.list(listOptions((name) => c.req.query(name))));
  });
  app.get("/admin/keys/:id", async (c) => c.json(await gateway.keys.get(c.req.param("id"))));
  app.patch("/admin/keys/:id", async (c) => {
    const patch = validate(keyPatchSchema, await body(c.req.raw));
    return c.json(await gateway.keys.update(c.req.param("id"), patch));
  });
  app.delete("/admin/keys/:id", async (c) => {
    await gateway.keys.delete(c.req.param("id"));
    return c.body(null, 204);
  });
  app.post("/admin/keys/:id/credit", async (c) => {
    const input = validate(creditInputSchema, await body(c.req.raw));
    const id = c.req.param("id");
    await gateway.keys.get(id);
    const entry = await gateway.ledger.credit(id, input.amount, {
      note: input.note,
      ref: input.ref,
    });
    return c.json(entry, 201);
  });

  // channels
  app.post("/admin/channels", async (c) => {
    const { create_models, ...input } = validate(channelCreateSchema, await body(c.req.raw));
    return c.json(
      await gateway.registry.createChannel(input, { createModels: create_models }),
      201,
    );
  });
  app.get("/admin/channels", async (c) => {
    return c.json(await gateway.registry.listChannels(listOptions((name) => c.req.query(name))));
  });
  app.get("/admin/channels/:id", async (c) => {
    return c.json(publicChannel(await gateway.registry.getChannel(c.req.param("id"))));
  });
  app.patch("/admin/channels/:id", async (c) => {
    const { create_models, ...patch } = validate(channelPatchBodySchema, await body(c.req.raw));
    return c.json(
      await gateway.registry.updateChannel(c.req.param("id"), patch, {
        createModels: create_models,
      }),
    );
  });
  app.delete("/admin/channels/:id", async (c) => {
    await gateway.registry.deleteChannel(c.req.param("id"));
    return c.body(null, 204);
  });

  // catalog
  app.get("/admin/models", (c) => c.json({ data: gateway.registry.models, cursor: null }));
  app.get("/admin/models/:id", (c) => c.json(gateway.registry.getModel(c.req.param("id"))));
  app.put("/admin/models/:id", async (c) => {
    const input = validate(modelInputSchema, await body(c.req.raw));
    return c.json(await gateway.registry.putModel(c.req.param("id"), input));
  });
  app.patch("/admin/models/:id", async (c) => {
    const patch = validate(modelPatchSchema, await body(c.req.raw));
    return c.json(await gateway.registry.patchModel(c.req.param("id"), patch));
  });
  app.delete("/admin/models/:id", async (c) => {
    await gateway.registry.deleteModel(c.req.param("id"));
    return c.body(null, 204);
  });

  // ledger, request log, tasks
  app.get("/admin/ledger", async (c) => {
    const options = listOptions((name) => c.req.query(name));
    return c.json(await gateway.ledger.list(c.req.query("key"), options));
  });
  app.get("/admin/requests", async (c) => {
    const options = listOptions((name) => c.req.query(name));
    return c.json(await gateway.requestLog.list(options, { key: c.req.query("key") }));
  });
  app.get("/admin/tasks", async (c) => {
    return c.json(await gateway.tasks.list(listOptions((name) => c.req.query(name))));
  });

  return app;
}
