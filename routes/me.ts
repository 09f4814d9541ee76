/**
 * The self-view of a key holder, with the key's own credential in any form a model interface
 * takes: GET /v1/me (the key's limits, balance, expiry and whatever else its record holds),
 * /v1/me/requests (its request log records), /v1/me/ledger (its ledger entries) and /v1/me/usage
 * (its usage per hour or day, by model, from the rollups). Never another
 * key's records, never channels or upstream URLs.
 */

import { Hono } from "hono";
import type { Gateway } from "../core/gateway.ts";
import { withoutSecrets } from "../core/util/without_secrets.ts";
import { type AppEnv, requireKey } from "./middleware.ts";
import { listed, listOptions } from "./admin/shared.ts";
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

export function meRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  const withKey = requireKey(gateway, "any");
  app.get(
    "/v1/me",
    withKey,
    async (c) => c.json(selfView(await gateway.keys.get(c.get("key").id))),
  );
  app.get("/v1/me/requests", withKey, async (c) => {
    const options = listOptions(c.get("url"));
    const page = await listed(options, () => ownRequests(gateway, c.get("key").id, options));
    return c.json({ data: page.data.map(selfView), cursor: page.cursor });
  });
  app.get("/v1/me/usage", withKey, async (c) => {
    const key = c.get("key");
    const query = { ...usageQuery(c.get("url"), ["model"]), keyId: key.id };
    // Nothing is read from before the key existed (its rollups are read hour by hour).
    const rows = await gateway.requestLog.usage({
      ...query,
      from: Math.max(query.from, hourOf(Date.parse(key.created_at))),
    });
    return c.json(usageAnswer(query, rows.map(selfView)));
  });
  app.get("/v1/me/ledger", withKey, async (c) => {
    const options = listOptions(c.get("url"));
    const page = await listed(options, () => gateway.ledger.list(c.get("key").id, options));
    return c.json({ data: page.data.map(selfView), cursor: page.cursor });
  });
  return app;
}

/** The start of the hour of `time` (NaN-safe: an unreadable time reads everything). */
function hourOf(time: number): number {
  return Number.isFinite(time) ? Math.floor(time / 3_600_000) * 3_600_000 : -Infinity;
}
