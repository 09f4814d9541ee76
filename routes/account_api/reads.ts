/**
 * The account API's reads: the account (wallet, group, your role), its models, usage from the
 * rollups, request records, tasks and the wallet's ledger. Owners and members read the same:
 * the whole account's, never channels or upstream attempts.
 */

import { Hono } from "hono";
import type { AccountArea } from "../../core/account_area/account_area.ts";
import type { AppEnv } from "../middleware.ts";
import {
  enumQuery,
  jsonAnswer,
  pageAnswer,
  serveRoute,
  TEXT_QUERY,
  TIME_QUERY,
} from "../openapi/declare_route.ts";
import { KEY_FILTER, keyFilter, LIST_QUERY, listed, listOptions } from "../admin/shared.ts";
import { usageAnswer, usageQuery } from "../admin/usage.ts";
import { TASK_STATUSES, taskFilter } from "../admin/tasks.ts";
import { accountRoute } from "./account_route.ts";

const readAccount = accountRoute({
  method: "get",
  path: "/v1/account",
  summary: "The account of the token: wallet balance, credit limit, group, spend, and your role",
  answers: {
    "200": jsonAnswer(
      "`{id, name, group, balance, credit_limit, unlimited, enabled, keys, spend_today, spend_month, last_used_at, role}`",
    ),
  },
});

const listModels = accountRoute({
  method: "get",
  path: "/v1/account/models",
  summary:
    "The models the account's group may use (a key's `models` must be among them), with the catalog `price` and the `price_paid` at the account's `price_multiplier`",
  answers: { "200": jsonAnswer("`{data: [{id}]}`, sorted") },
});

const readUsage = accountRoute({
  method: "get",
  path: "/v1/account/usage",
  summary: "The account's usage per hour or day, by key and/or model, from the rollups",
  query: [
    { name: "group_by", description: "any of `key`, `model`, comma-separated", schema: TEXT_QUERY },
    {
      name: "interval",
      description: "`hour` (default) or `day`",
      schema: enumQuery(["hour", "day"]),
    },
    { name: "from", description: "ISO 8601 time (default 24 h before `to`)", schema: TIME_QUERY },
    { name: "to", description: "ISO 8601 time (default now)", schema: TIME_QUERY },
  ],
  answers: {
    "200": jsonAnswer(
      "`{from, to, interval, group_by, data: [{start, key_id?, model?, requests, …, cost}]}`",
    ),
  },
});

const listRequests = accountRoute({
  method: "get",
  path: "/v1/account/requests",
  summary: "The account's request records, newest first (no channels, no upstream attempts)",
  query: [...LIST_QUERY, KEY_FILTER],
  answers: pageAnswer("request records"),
});

const readRequest = accountRoute({
  method: "get",
  path: "/v1/account/requests/{id}",
  summary: "One request record of the account, with its receipt",
  answers: { "200": jsonAnswer("the request record") },
});

const listTasks = accountRoute({
  method: "get",
  path: "/v1/account/tasks",
  summary: "The account's image and video tasks",
  query: [
    ...LIST_QUERY,
    KEY_FILTER,
    { name: "kind", description: "`image` or `video`", schema: enumQuery(["image", "video"]) },
    { name: "status", description: "the task's status", schema: enumQuery(TASK_STATUSES) },
    { name: "model", description: "a model id", schema: TEXT_QUERY },
  ],
  answers: pageAnswer("tasks {id, kind, key_id, model, status, progress, cost, …}"),
});

const listLedger = accountRoute({
  method: "get",
  path: "/v1/account/ledger",
  summary: "The wallet's ledger entries, each naming its key (and request)",
  query: LIST_QUERY,
  answers: pageAnswer("ledger entries {id, key_id, type, amount, balance_after, ref, at, …}"),
});

export function accountReadRoutes(area: AccountArea) {
  const app = new Hono<AppEnv>();
  serveRoute(app, readAccount, async (c) => c.json(await area.account(c.get("actor"))));
  serveRoute(app, listModels, async (c) => {
    const { models } = await area.priced(c.get("actor"));
    return c.json({ data: models.map(({ model: _catalog, ...model }) => model) });
  });
  serveRoute(app, readUsage, async (c) => {
    const query = usageQuery(c.get("url"), ["key", "model"]);
    return c.json(usageAnswer(query, await area.usage(c.get("actor"), query)));
  });
  serveRoute(app, listRequests, async (c) => {
    const url = c.get("url");
    const options = listOptions(url);
    const key = keyFilter(url);
    return c.json(await listed(options, () => area.requests(c.get("actor"), options, { key })));
  });
  serveRoute(
    app,
    readRequest,
    async (c) => c.json(await area.request(c.get("actor"), c.req.param("id"))),
  );
  serveRoute(app, listTasks, async (c) => {
    const url = c.get("url");
    const options = listOptions(url);
    const filter = taskFilter(url);
    return c.json(await listed(options, () => area.tasks(c.get("actor"), options, filter)));
  });
  serveRoute(app, listLedger, async (c) => {
    const options = listOptions(c.get("url"));
    return c.json(await listed(options, () => area.ledger(c.get("actor"), options)));
  });
  return app;
}
