/**
 * Admin routes of the request log: filtered pages, one request with its receipt, and the
 * streamed export (CSV or JSON Lines) of a filtered list.
 */

import { Hono } from "hono";
import { GatewayError } from "../../core/errors.ts";
import type { Gateway } from "../../core/gateway.ts";
import type { ListOptions } from "../../core/kv/list_options.ts";
import type { RequestFilter } from "../../core/telemetry/request_log_query.ts";
import type { RequestLogEntry } from "../../core/telemetry/request_log.ts";
import { csvHeader, csvRow } from "../../core/telemetry/request_log_csv.ts";
import type { AppEnv } from "../middleware.ts";
import {
  enumQuery,
  jsonAnswer,
  pageAnswer,
  type QueryParameter,
  serveRoute,
  TEXT_QUERY,
  TIME_QUERY,
} from "../openapi/declare_route.ts";
import {
  hasIdShape,
  ID_SHAPES,
  invalidQueryParameter,
  queryChoice,
  queryValue,
} from "../params.ts";
import { adminRoute, KEY_FILTER, keyFilter, LIST_QUERY, listed, listOptions } from "./shared.ts";
import { interfaceNames } from "../../core/formats/interfaces.ts";

/** The request log's filters beside `key`, as the OpenAPI document says. */
const REQUEST_FILTERS: QueryParameter[] = [
  {
    name: "account",
    description: "an account id: the records of all its keys",
    schema: TEXT_QUERY,
  },
  { name: "model", description: "the model asked for", schema: TEXT_QUERY },
  { name: "channel", description: "a channel id", schema: TEXT_QUERY },
  { name: "status", description: "`2xx`, `4xx`, `5xx` or one status code", schema: TEXT_QUERY },
  {
    name: "interface",
    description:
      "`openai-chat`, `openai-responses`, `openai-images`, `video`, `rerank`, `moderation`, " +
      "`openai-audio`, `openai-audio-speech`, `anthropic`, `gemini`, `openai`",
    schema: TEXT_QUERY,
  },
  { name: "request_id", description: "one request id", schema: TEXT_QUERY },
];

const REQUEST_ID = /^req_[0-9A-Za-z]{1,64}$/;
/** Records read per page while exporting. */
const EXPORT_PAGE = 500;

const requestNotFound = (id: string) =>
  new GatewayError("request_not_found", 404, `No logged request has the id '${id}'`, {
    param: "id",
  });

/** `?key=&model=&channel=&status=&interface=&request_id=` of the request log. */
export function requestFilter(url: URL): RequestFilter {
  const filter: RequestFilter = {};
  const key = keyFilter(url);
  if (key) filter.key = key;
  const account = queryValue(url, "account");
  if (account) {
    if (!hasIdShape(account, "account")) {
      throw invalidQueryParameter(
        "account",
        `must be an account id (${ID_SHAPES.account.looksLike})`,
      );
    }
    filter.account = account;
  }
  const model = queryValue(url, "model");
  if (model) {
    if (model.length > 256) throw invalidQueryParameter("model", "must be at most 256 characters");
    filter.model = model;
  }
  const channel = queryValue(url, "channel");
  if (channel) {
    if (!hasIdShape(channel, "channel")) {
      throw invalidQueryParameter(
        "channel",
        `must be a channel id (${ID_SHAPES.channel.looksLike})`,
      );
    }
    filter.channel = channel;
  }
  const status = queryValue(url, "status");
  if (status) {
    if (!/^[1-5]xx$/.test(status) && !/^[1-5][0-9]{2}$/.test(status)) {
      throw invalidQueryParameter(
        "status",
        `must be a status class (2xx, 4xx, 5xx…) or a status code such as 404, not '${
          status.slice(0, 60)
        }'`,
      );
    }
    filter.status = status;
  }
  const clientInterface = queryChoice(url, "interface", {
    allowed: interfaceNames(),
    fallback: undefined,
  });
  if (clientInterface) filter.interface = clientInterface;
  const requestId = queryValue(url, "request_id");
  if (requestId) {
    if (!REQUEST_ID.test(requestId)) {
      throw invalidQueryParameter(
        "request_id",
        "must be a request id (req_ followed by letters and digits)",
      );
    }
    filter.request_id = requestId;
  }
  return filter;
}

/** Every record matching `filter`, page by page as the reader pulls, in `format`. */
export function exportStream(
  gateway: Gateway,
  query: { options: ListOptions; filter: RequestFilter; format: "csv" | "jsonl" },
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let cursor: string | undefined;
  let started = false;
  return new ReadableStream({
    async pull(controller) {
      if (!started && query.format === "csv") controller.enqueue(encoder.encode(csvHeader()));
      started = true;
      const page = await gateway.requestLog.list(
        { ...query.options, limit: EXPORT_PAGE, cursor },
        query.filter,
      );
      const lines = page.data.map((record: RequestLogEntry) =>
        query.format === "csv" ? csvRow(record) : `${JSON.stringify(record)}\n`
      );
      if (lines.length) controller.enqueue(encoder.encode(lines.join("")));
      cursor = page.cursor ?? undefined;
      if (cursor === undefined) controller.close();
    },
  }, { highWaterMark: 0 });
}

const listRequests = adminRoute({
  method: "get",
  path: "/admin/requests",
  summary: "The request log, filtered",
  query: [...LIST_QUERY, KEY_FILTER, ...REQUEST_FILTERS],
  answers: pageAnswer("request records"),
});

const exportRequests = adminRoute({
  method: "get",
  path: "/admin/requests/export",
  summary: "The filtered request log as CSV or JSON Lines, streamed",
  query: [
    {
      name: "format",
      description: "`jsonl` (default) or `csv`",
      schema: enumQuery(["jsonl", "csv"]),
    },
    { name: "order", description: "`desc` (default) or `asc`", schema: TEXT_QUERY },
    {
      name: "since",
      description: "ISO 8601 time",
      schema: TIME_QUERY,
    },
    {
      name: "until",
      description: "ISO 8601 time",
      schema: TIME_QUERY,
    },
    KEY_FILTER,
    ...REQUEST_FILTERS,
  ],
  answers: {
    "200": {
      description: "one record a line (JSON Lines) or CSV with a header row",
      contentType: "text/csv",
    },
  },
});

const readRequest = adminRoute({
  method: "get",
  path: "/admin/requests/{id}",
  summary: "One request record with its receipt, attempts and ignored fields",
  answers: { "200": jsonAnswer("the record with `receipt`") },
});

export function adminRequestRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  serveRoute(app, listRequests, async (c) => {
    const url = c.get("url");
    const options = listOptions(url);
    const filter = requestFilter(url);
    return c.json(await listed(options, () => gateway.requestLog.list(options, filter)));
  });
  serveRoute(app, exportRequests, (c) => {
    const url = c.get("url");
    const format = queryChoice(url, "format", { allowed: ["csv", "jsonl"], fallback: "jsonl" })!;
    const { cursor: _ignored, ...options } = listOptions(url);
    const filter = requestFilter(url);
    const stream = exportStream(gateway, { options, filter, format });
    return new Response(stream, {
      headers: {
        "content-type": format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson",
        "content-disposition": `attachment; filename="requests.${format}"`,
      },
    });
  });
  serveRoute(app, readRequest, async (c) => {
    const id = c.req.param("id");
    if (!REQUEST_ID.test(id)) throw requestNotFound(id.slice(0, 60));
    const record = await gateway.requestLog.get(id);
    if (!record) throw requestNotFound(id);
    return c.json(record);
  });
  return app;
}
