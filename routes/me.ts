/**
 * The self-view of a key holder, with the key's own credential in any form a model interface
 * takes: GET /v1/me (the key's limits, balance, expiry and whatever else its record holds),
 * /v1/me/requests (its request log records), /v1/me/ledger (its ledger entries) and /v1/me/usage
 * (its usage per hour or day, by model, from the rollups). Never another
 * key's records, never channels or upstream URLs.
 */

import { Hono } from "hono";
import { walletOf } from "../core/billing/ledger.ts";
import type { Gateway } from "../core/gateway.ts";
import { withoutSecrets } from "../core/util/without_secrets.ts";
import { type AppEnv, requireKey } from "./middleware.ts";
import { LIST_QUERY, listed, listOptions } from "./admin/shared.ts";
import {
  declareRoute,
  enumQuery,
  jsonAnswer,
  pageAnswer,
  serveRoute,
  TEXT_QUERY,
  TIME_QUERY,
} from "./openapi/declare_route.ts";
import { usageAnswer, usageQuery } from "./admin/usage.ts";
import type { ListOptions } from "../core/kv/list_options.ts";
import type { RequestLogEntry } from "../core/telemetry/request_log.ts";

/** Fields a key holder never sees: how its requests were routed, and who else holds keys. */
const HIDDEN_FIELD = /channel|upstream/i;

export function selfView(record: object): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(withoutSecrets(record) as Record<string, unknown>).filter(([name]) =>
      !HIDDEN_FIELD.test(name)
    ),
  );
}

/** Reads of the log a filtered page makes at most to fill itself; then it comes back short. */
const MAX_READS_PER_PAGE = 20;

/**
 * A page of the key's request log records: the log is filtered by key as it is read, so reads go
 * on (each for what the page still lacks, which keeps the cursor exact) until the page is full.
 */
export async function ownRequests(gateway: Gateway, keyId: string, options: ListOptions) {
  const data: RequestLogEntry[] = [];
  let cursor: string | null | undefined = options.cursor;
  for (let reads = 0; reads < MAX_READS_PER_PAGE; reads++) {
    const page = await gateway.requestLog.list(
      { ...options, cursor: cursor ?? undefined, limit: options.limit - data.length },
      { key: keyId },
    );
    data.push(...page.data);
    cursor = page.cursor;
    if (cursor === null || data.length === options.limit) break;
  }
  return { data, cursor: cursor ?? null };
}

const ownKey = declareRoute({
  method: "get",
  path: "/v1/me",
  tag: "self",
  summary: "The calling key's own state: limits, balance, expiry (any credential form)",
  security: "any_key",
  errors: "openai",
  answers: { "200": jsonAnswer("the key's view, as the admin API shows it, without secrets") },
});

const ownRequestLog = declareRoute({
  method: "get",
  path: "/v1/me/requests",
  tag: "self",
  summary: "The calling key's own request records (no channels, no upstream URLs)",
  security: "any_key",
  errors: "openai",
  query: LIST_QUERY,
  answers: pageAnswer("request records"),
});

const ownLedger = declareRoute({
  method: "get",
  path: "/v1/me/ledger",
  tag: "self",
  summary: "The calling key's own ledger entries",
  security: "any_key",
  errors: "openai",
  query: LIST_QUERY,
  answers: pageAnswer("ledger entries"),
});

const ownUsage = declareRoute({
  method: "get",
  path: "/v1/me/usage",
  tag: "self",
  summary: "The calling key's own usage per hour or day, by model if asked, from the rollups",
  security: "any_key",
  errors: "openai",
  query: [
    { name: "group_by", description: "`model`, or nothing", schema: TEXT_QUERY },
    {
      name: "interval",
      description: "`hour` (default) or `day`",
      schema: enumQuery(["hour", "day"]),
    },
    { name: "from", description: "ISO 8601 time (default 24 h before `to`)", schema: TIME_QUERY },
    { name: "to", description: "ISO 8601 time (default now)", schema: TIME_QUERY },
  ],
  answers: {
    "200": {
      description: "`{from, to, interval, group_by, data: [{start, model?, requests, …, cost}]}`",
    },
  },
});

export function meRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  const withKey = requireKey(gateway, "any");
  serveRoute(
    app,
    ownKey,
    withKey,
    async (c) => c.json(selfView(await gateway.keys.get(c.get("key").id))),
  );
  serveRoute(app, ownRequestLog, withKey, async (c) => {
    const options = listOptions(c.get("url"));
    const page = await listed(options, () => ownRequests(gateway, c.get("key").id, options));
    return c.json({ data: page.data.map(selfView), cursor: page.cursor });
  });
  serveRoute(app, ownUsage, withKey, async (c) => {
    const key = c.get("key");
    const query = { ...usageQuery(c.get("url"), ["model"]), keyId: key.id };
    // Nothing is read from before the key existed (its rollups are read hour by hour).
    const rows = await gateway.requestLog.usage({
      ...query,
      from: Math.max(query.from, hourOf(Date.parse(key.created_at))),
    });
    return c.json(usageAnswer(query, rows.map(selfView)));
  });
  serveRoute(app, ownLedger, withKey, async (c) => {
    const options = listOptions(c.get("url"));
    const page = await listed(options, () => gateway.ledger.list(walletOf(c.get("key")), options));
    return c.json({ data: page.data.map(selfView), cursor: page.cursor });
  });
  return app;
}

/** The start of the hour of `time` (NaN-safe: an unreadable time reads everything). */
function hourOf(time: number): number {
  return Number.isFinite(time) ? Math.floor(time / 3_600_000) * 3_600_000 : -Infinity;
}
