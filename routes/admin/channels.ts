/** Admin routes for channels (upstream routes): CRUD, single keys, health, and a test call. */

import { Hono } from "hono";
import { channelCreateSchema, channelPatchBodySchema } from "../../core/channels/channel_schema.ts";
import type { Gateway } from "../../core/gateway.ts";
import type { AppEnv } from "../middleware.ts";
import { validate } from "../validation.ts";
import { channelProbeSchema, testChannel } from "./channel_test.ts";
import { adminBody, channelId, listed, listOptions, optionalAdminBody } from "./shared.ts";

export function adminChannelRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  /** A channel's admin view with its health beside it. */
  const withHealth = async <T extends { id: string }>(view: T) => ({
    ...view,
    health: await gateway.channelHealth.read(view.id),
  });

  app.post("/admin/channels", async (c) => {
    const { create_models, ...input } = validate(
      channelCreateSchema,
      await adminBody(c.req.raw),
    );
    const created = await gateway.registry.createChannel(input, { createModels: create_models });
    return c.json(await withHealth(created), 201);
  });
  app.get("/admin/channels", async (c) => {
    const options = listOptions(c.get("url"));
    const page = await listed(options, () => gateway.registry.listChannels(options));
    return c.json({ ...page, data: await Promise.all(page.data.map(withHealth)) });
  });
  app.get("/admin/channels/:id", async (c) => {
    const registry = gateway.registry;
    return c.json(
      await withHealth(await registry.channelView(await registry.getChannel(channelId(c)))),
    );
  });
  app.patch("/admin/channels/:id", async (c) => {
    const id = channelId(c);
    const { create_models, add_keys, remove_keys, ...patch } = validate(
      channelPatchBodySchema,
      await adminBody(c.req.raw),
    );
    const updated = await gateway.registry.updateChannel(id, patch, {
      createModels: create_models,
      keyOperations: { add_keys, remove_keys },
    });
    return c.json(await withHealth(updated));
  });
  app.post("/admin/channels/:id/test", async (c) => {
    const id = channelId(c);
    const input = validate(channelProbeSchema, await optionalAdminBody(c.req.raw));
    const channel = await gateway.registry.openChannel(id);
    return c.json(
      await testChannel(gateway, { channel, model: input.model, signal: c.req.raw.signal }),
    );
  });
  app.delete("/admin/channels/:id", async (c) => {
    await gateway.registry.deleteChannel(channelId(c));
    return c.body(null, 204);
  });
  return app;
}
