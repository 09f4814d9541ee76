/**
 * Admin routes for channels (upstream routes): CRUD, single keys, health, breakers and their
 * reset, and a test call.
 */

import { Hono } from "hono";
import { z } from "zod";
import { GatewayError } from "../../core/errors.ts";
import { FINGERPRINT_PATTERN } from "../../core/channels/key_hint.ts";
import { channelCreateSchema, channelPatchBodySchema } from "../../core/channels/channel_schema.ts";
import type { Gateway } from "../../core/gateway.ts";
import type { AppEnv } from "../middleware.ts";
import {
  createdAnswer,
  deletedAnswer,
  jsonAnswer,
  pageAnswer,
  serveRoute,
} from "../openapi/declare_route.ts";
import { validate } from "../validation.ts";
import { channelProbeSchema, testChannel } from "./channel_test.ts";
import { fetchUpstreamModels } from "./upstream_models.ts";
import {
  adminBody,
  adminRoute,
  channelId,
  LIST_QUERY,
  listed,
  listOptions,
  optionalAdminBody,
} from "./shared.ts";

const createChannel = adminRoute({
  method: "post",
  path: "/admin/channels",
  summary: "Create a channel; upstream keys are sealed and never echoed",
  body: { name: "ChannelCreate", schema: channelCreateSchema },
  answers: createdAnswer("the channel's view (`key_count`, never keys)"),
});

const listChannels = adminRoute({
  method: "get",
  path: "/admin/channels",
  summary: "List channels",
  query: LIST_QUERY,
  answers: pageAnswer("channel views"),
});

const readChannel = adminRoute({
  method: "get",
  path: "/admin/channels/{id}",
  summary: "Read a channel",
  answers: { "200": jsonAnswer("the channel's view") },
});

const updateChannel = adminRoute({
  method: "patch",
  path: "/admin/channels/{id}",
  summary: "Change exactly the fields sent",
  body: { name: "ChannelPatch", schema: channelPatchBodySchema },
  answers: { "200": jsonAnswer("the channel's view") },
});

const deleteChannel = adminRoute({
  method: "delete",
  path: "/admin/channels/{id}",
  summary: "Delete a channel",
  answers: deletedAnswer,
});

const testChannelRoute = adminRoute({
  method: "post",
  path: "/admin/channels/{id}/test",
  summary: "One minimal real call through a channel, by the model's kind; never billed",
  body: { name: "ChannelTest", schema: channelProbeSchema },
  answers: {
    "200": jsonAnswer("{ok, status, latency_ms, error_class?, error?, model, channel_id, call}"),
  },
});

const readUpstreamModels = adminRoute({
  method: "get",
  path: "/admin/channels/{id}/upstream-models",
  summary:
    "The upstream's own model list, read with one of the channel's keys (OpenAI GET /models, " +
    "Anthropic GET /v1/models, Gemini GET /v1beta/models; video types have none)",
  answers: {
    "200": jsonAnswer(
      "{ok: true, models: [{id, label?}]} or {ok: false, error, status?} (the upstream's refusal)",
    ),
  },
});

const breakerResetSchema = z.strictObject({
  /** One upstream key's breaker, by its fingerprint; without it, the channel's and every key's. */
  key: z.string().regex(FINGERPRINT_PATTERN, {
    error: "must be a key fingerprint as GET shows it: 8 hex characters such as '3f2a9c1e'",
  }).optional(),
});

const readBreakers = adminRoute({
  method: "get",
  path: "/admin/channels/{id}/breakers",
  summary: "The channel's breaker and each upstream key's: state, cooldown end, last reasons",
  answers: {
    "200": jsonAnswer(
      "{state: closed | open | half_open, open_until, aside_until, reasons, keys: [{fingerprint, …}]}",
    ),
  },
});

const resetBreakers = adminRoute({
  method: "post",
  path: "/admin/channels/{id}/breakers/reset",
  summary: "Close the channel's breakers (or one key's, by fingerprint), on every instance",
  body: { name: "BreakerReset", schema: breakerResetSchema },
  answers: { "200": jsonAnswer("{reset: [the breakers that were not closed], breakers}") },
});

/**
 * Applies a validated PATCH body: `clear_auto_disabled` clears the gateway's own marks (even on a
 * channel the config file manages: they are not the file's), the rest changes the record.
 */
export async function applyChannelPatch(
  gateway: Gateway,
  id: string,
  body: z.infer<typeof channelPatchBodySchema>,
) {
  const { create_models, add_keys, remove_keys, clear_auto_disabled, ...patch } = body;
  const registry = gateway.registry;
  const stored = await registry.getChannel(id);
  if (clear_auto_disabled) {
    // The operator says the channel works: its breakers start closed as well.
    await gateway.autoDisabler.clear(id);
    await gateway.breakers.reset(id);
  }
  const changesRecord = Object.keys(patch).length > 0 || add_keys || remove_keys ||
    create_models !== undefined || !clear_auto_disabled;
  if (!changesRecord) return await registry.channelView(stored);
  return await registry.updateChannel(id, patch, {
    createModels: create_models,
    keyOperations: { add_keys, remove_keys },
  });
}

export function adminChannelRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  /** The breakers of the channel `id` (its keys opened in memory only). */
  const breakersOf = async (id: string) =>
    await gateway.breakers.view(await gateway.registry.openChannel(id));
  /** A channel's admin view with its health and breakers beside it. */
  const withHealth = async <T extends { id: string }>(view: T) => ({
    ...view,
    health: await gateway.channelHealth.read(view.id),
    breakers: await breakersOf(view.id),
  });

  serveRoute(app, createChannel, async (c) => {
    const { create_models, ...input } = validate(
      channelCreateSchema,
      await adminBody(c.req.raw),
    );
    const created = await gateway.registry.createChannel(input, { createModels: create_models });
    return c.json(await withHealth(created), 201);
  });
  serveRoute(app, listChannels, async (c) => {
    const options = listOptions(c.get("url"));
    const page = await listed(options, () => gateway.registry.listChannels(options));
    return c.json({ ...page, data: await Promise.all(page.data.map(withHealth)) });
  });
  serveRoute(app, readChannel, async (c) => {
    const registry = gateway.registry;
    return c.json(
      await withHealth(await registry.channelView(await registry.getChannel(channelId(c)))),
    );
  });
  serveRoute(app, updateChannel, async (c) => {
    const id = channelId(c);
    const body = validate(channelPatchBodySchema, await adminBody(c.req.raw));
    return c.json(await withHealth(await applyChannelPatch(gateway, id, body)));
  });
  serveRoute(app, testChannelRoute, async (c) => {
    const id = channelId(c);
    const input = validate(channelProbeSchema, await optionalAdminBody(c.req.raw));
    const channel = await gateway.registry.openChannel(id);
    return c.json(
      await testChannel(gateway, { channel, model: input.model, signal: c.req.raw.signal }),
    );
  });
  serveRoute(app, readUpstreamModels, async (c) => {
    const channel = await gateway.registry.openChannel(channelId(c));
    return c.json(await fetchUpstreamModels(channel, { signal: c.req.raw.signal }));
  });
  serveRoute(app, readBreakers, async (c) => c.json(await breakersOf(channelId(c))));
  serveRoute(app, resetBreakers, async (c) => {
    const id = channelId(c);
    const input = validate(breakerResetSchema, await optionalAdminBody(c.req.raw));
    const before = await breakersOf(id);
    if (input.key && !before.keys.some((key) => key.fingerprint === input.key)) {
      throw new GatewayError(
        "unknown_key_fingerprint",
        400,
        `Channel '${id}' has no upstream key with fingerprint '${input.key}'; its keys are ${
          before.keys.map((key) => `'${key.fingerprint}'`).join(", ")
        }`,
        { param: "key" },
      );
    }
    const reset = await gateway.breakers.reset(id, input.key);
    return c.json({ reset, breakers: await breakersOf(id) });
  });
  serveRoute(app, deleteChannel, async (c) => {
    await gateway.registry.deleteChannel(channelId(c));
    return c.body(null, 204);
  });
  return app;
}
