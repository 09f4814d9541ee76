/** Admin routes for channels (upstream routes). */

import { Hono } from "hono";
import {
  channelCreateSchema,
  channelPatchBodySchema,
  publicChannel,
} from "../../core/channels/channel_schema.ts";
import type { Gateway } from "../../core/gateway.ts";
import type { AppEnv } from "../middleware.ts";
import { validate } from "../validation.ts";
import { adminBody, channelId, listed, listOptions } from "./shared.ts";

export function adminChannelRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  app.post("/admin/channels", async (c) => {
    const { create_models, ...input } = validate(
      channelCreateSchema,
      await adminBody(c.req.raw),
    );
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
    const { create_models, ...patch } = validate(
      channelPatchBodySchema,
      await adminBody(c.req.raw),
    );
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
  return app;
}
