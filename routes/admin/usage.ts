/** `GET /admin/usage`: totals per hour or day, grouped by key, model and channel, from rollups. */

import { Hono } from "hono";
import type { Gateway } from "../../core/gateway.ts";
import type { UsageGroup, UsageQuery } from "../../core/telemetry/usage_rollups.ts";
import type { AppEnv } from "../middleware.ts";
import {
  enumQuery,
  jsonAnswer,
  serveRoute,
  TEXT_QUERY,
  TIME_QUERY,
} from "../openapi/declare_route.ts";
import { invalidQueryParameter, queryChoice, queryValue } from "../params.ts";
import { adminRoute, timeParam } from "./shared.ts";

const GROUPS: readonly UsageGroup[] = ["key", "model", "channel"];
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** The longest range one call reads. */
const MAX_RANGE_DAYS = 400;

/** `?group_by=` of the groups `allowed` (any subset, each once; answered in that order). */
function groupByParam(url: URL, allowed: readonly UsageGroup[]): UsageGroup[] {
  const value = queryValue(url, "group_by");
  if (!value) return [];
  const names = value.split(",");
  for (const name of names) {
    if (!(allowed as readonly string[]).includes(name)) {
      throw invalidQueryParameter(
        "group_by",
        `must list some of ${allowed.join(", ")} separated by commas, not '${name.slice(0, 60)}'`,
      );
    }
  }
  if (new Set(names).size !== names.length) {
    throw invalidQueryParameter("group_by", "names a field twice");
  }
  return allowed.filter((group) => names.includes(group));
}

/** `?group_by=&interval=hour|day&from=&to=` of a usage read; `groups` are those it may group by. */
export function usageQuery(url: URL, groups: readonly UsageGroup[] = GROUPS): UsageQuery {
  const groupBy = groupByParam(url, groups);
  const interval = queryChoice(url, "interval", { allowed: ["hour", "day"], fallback: "hour" })!;
  // Rollups are per hour: the range is widened to whole hours.
  const to = Math.ceil((timeParam(url, "to") ?? Date.now()) / HOUR_MS) * HOUR_MS;
  const from = Math.floor((timeParam(url, "from") ?? to - DAY_MS) / HOUR_MS) * HOUR_MS;
  if (from >= to) throw invalidQueryParameter("from", "must be earlier than to");
  if (to - from > MAX_RANGE_DAYS * DAY_MS) {
    throw invalidQueryParameter("to", `must be at most ${MAX_RANGE_DAYS} days after from`);
  }
  return { from, to, interval, groupBy };
}

/** The answer of a usage read. */
export function usageAnswer(query: UsageQuery, data: unknown[]) {
  return {
    from: new Date(query.from).toISOString(),
    to: new Date(query.to).toISOString(),
    interval: query.interval,
    group_by: query.groupBy,
    data,
  };
}

const readUsage = adminRoute({
  method: "get",
  path: "/admin/usage",
  summary: "Totals per hour or day by key, model and channel, from rollups",
  query: [
    {
      name: "group_by",
      description: "any of `key`, `model`, `channel`, comma-separated",
      schema: TEXT_QUERY,
    },
    {
      name: "interval",
      description: "`hour` (default) or `day`",
      schema: enumQuery(["hour", "day"]),
    },
    {
      name: "from",
      description: "ISO 8601 time (default 24 h ago)",
      schema: TIME_QUERY,
    },
    {
      name: "to",
      description: "ISO 8601 time (default now)",
      schema: TIME_QUERY,
    },
  ],
  answers: {
    "200": jsonAnswer("`{data: [{period, key_id?, model?, channel_id?, requests, …, cost}]}`"),
  },
});

export function adminUsageRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  serveRoute(app, readUsage, async (c) => {
    const query = usageQuery(c.get("url"));
    return c.json(usageAnswer(query, await gateway.requestLog.usage(query)));
  });
  return app;
}
