/** The admin JSON API under /admin (design.md §1). Bearer GATEWAY_ADMIN_TOKEN. */

import { type Context, Hono } from "hono";
import { isAdminToken } from "../core/keys/admin_token.ts";
import { modelInputSchema, modelPatchSchema } from "../core/channels/catalog.ts";
import {
  channelCreateSchema,
  channelPatchBodySchema,
  publicChannel,
} from "../core/channels/channel_schema.ts";
import { GatewayError } from "../core/errors.ts";
import type { Gateway } from "../core/gateway.ts";
import { cursorRefusal, cursorShapeProblem, type ListOptions } from "../core/kv/list_options.ts";
import { creditInputSchema, keyInputSchema, keyPatchSchema } from "../core/keys/key_schema.ts";
import { type AppEnv, authFailure } from "./middleware.ts";
import {
  hasIdShape,
  ID_SHAPES,
  idParam,
  invalidQueryParameter,
  queryChoice,
  queryInteger,
  queryValue,
} from "./params.ts";
import { readJsonBody, validate } from "./validation.ts";

const ADMIN_BODY_LIMIT = 1024 * 1024;

function timeParam(url: URL, name: string): number | undefined {
  const value = queryValue(url, name);
  if (value === undefined || value === "") return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) {
    throw invalidQueryParameter(
      name,
      `must be an ISO 8601 time such as 2026-11-24T10:00:00Z, not '${value.slice(0, 60)}'`,
    );
  }
  return ms;
}

/** `?cursor=&limit=&order=asc|desc&since=&until=` of an admin list; newest first by default. */
function listOptions(url: URL): ListOptions {
  const limit = queryInteger(url, "limit", { min: 1, max: 1000, fallback: 50 });
  const order = queryChoice(url, "order", { allowed: ["asc", "desc"], fallback: "desc" })!;
  const cursor = queryValue(url, "cursor") || undefined;
  const shapeProblem = cursor === undefined ? undefined : cursorShapeProblem(cursor);
  if (shapeProblem) throw invalidQueryParameter("cursor", shapeProblem);
  const since = timeParam(url, "since");
  const until = timeParam(url, "until");
  if (since !== undefined && until !== undefined && since > until) {
    throw invalidQueryParameter("since", "must not be later than until");
  }
  return { cursor, limit, order, since, until };
}

/** The `?key=` filter of the ledger and the request log: a key id, or absent. */
function keyFilter(url: URL): string | undefined {
  const key = queryValue(url, "key") || undefined;
  if (key !== undefined && !hasIdShape(key, "key")) {
    throw invalidQueryParameter("key", `must be a key id (${ID_SHAPES.key.looksLike})`);
  }
  return key;
}

/** Reads a list, turning KV's refusal of the cursor into a 400 naming it. */
async function listed<T>(options: ListOptions, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    const refusal = options.cursor === undefined ? undefined : cursorRefusal(error);
    if (refusal) throw invalidQueryParameter("cursor", refusal);
    throw error;
  }
}

const keyNotFound = (id: string) =>
  new GatewayError("key_not_found", 404, `No key has the id '${id}'`);
const channelNotFound = (id: string) =>
  new GatewayError("channel_not_found", 404, `No channel has the id '${id}'`);

/** A catalog id as PUT may create it: 1-200 characters, no spaces (control characters are refused for every path). */
function newModelId(id: string): string {
  if (id.length > 200 || /\s/.test(id)) {
    throw new GatewayError(
      "invalid_request",
      400,
      "The path parameter 'id' must be a model id of 1-200 characters without spaces",
      { param: "id" },
    );
  }
  return id;
}

/** The admin sub-app. */
export function adminRoutes(gateway: Gateway, adminTokenHash: string) {
  const app = new Hono<AppEnv>();

  app.use("/admin/*", async function adminAuth(c, next) {
    const token = c.req.header("authorization")?.match(/^Bearer\s+(\S+)$/i)?.[1];
    if (!token || !(await isAdminToken(token, adminTokenHash))) {
      throw authFailure(
        c,
        new GatewayError(
          "invalid_admin_token",
          401,
          "Admin endpoints need 'Authorization: Bearer <GATEWAY_ADMIN_TOKEN>'",
        ),
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
  const keyId = (c: Context<AppEnv>) => idParam(c, "id", { shape: "key", notFound: keyNotFound });
  const channelId = (c: Context<AppEnv>) =>
    idParam(c, "id", { shape: "channel", notFound: channelNotFound });

  app.get("/admin/keys", async (c) => {
    const options = listOptions(c.get("url"));
    return c.json(await listed(options, () => gateway.keys.list(options)));
  });
  app.get("/admin/keys/:id", async (c) => c.json(await gateway.keys.get(keyId(c))));
  app.patch("/admin/keys/:id", async (c) => {
    const id = keyId(c);
    const patch = validate(keyPatchSchema, await body(c.req.raw));
    return c.json(await gateway.keys.update(id, patch));
  });
  app.delete("/admin/keys/:id", async (c) => {
    await gateway.keys.delete(keyId(c));
    return c.body(null, 204);
  });
  app.post("/admin/keys/:id/credit", async (c) => {
    const id = keyId(c);
    const input = validate(creditInputSchema, await body(c.req.raw));
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
    const options = listOptions(c.get("url"));
    return c.json(await listed(options, () => gateway.registry.listChannels(options)));
  });
  app.get("/admin/channels/:id", async (c) => {
    return c.json(publicChannel(await gateway.registry.getChannel(channelId(c))));
  });
  app.patch("/admin/channels/:id", async (c) => {
    const id = channelId(c);
    const { create_models, ...patch } = validate(channelPatchBodySchema, await body(c.req.raw));
    return c.json(
      await gateway.registry.updateChannel(id, patch, {
        createModels: create_models,
      }),
    );
  });
  app.delete("/admin/channels/:id", async (c) => {
    await gateway.registry.deleteChannel(channelId(c));
    return c.body(null, 204);
  });

  // catalog
  app.get("/admin/models", (c) => c.json({ data: gateway.registry.models, cursor: null }));
  app.get("/admin/models/:id", (c) => c.json(gateway.registry.getModel(c.req.param("id"))));
  app.put("/admin/models/:id", async (c) => {
    const id = newModelId(c.req.param("id"));
    const input = validate(modelInputSchema, await body(c.req.raw));
    return c.json(await gateway.registry.putModel(id, input));
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
    const options = listOptions(c.get("url"));
    const key = keyFilter(c.get("url"));
    return c.json(await listed(options, () => gateway.ledger.list(key, options)));
  });
  app.get("/admin/requests", async (c) => {
    const options = listOptions(c.get("url"));
    const key = keyFilter(c.get("url"));
    return c.json(await listed(options, () => gateway.requestLog.list(options, { key })));
  });
  app.get("/admin/tasks", async (c) => {
    const options = listOptions(c.get("url"));
    return c.json(await listed(options, () => gateway.tasks.list(options)));
  });

  return app;
}
