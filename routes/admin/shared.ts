/** What every admin route file shares: list options, id parameters, the JSON body reader. */

import type { Context } from "hono";
import { GatewayError } from "../../core/errors.ts";
import { cursorRefusal, type ListOptions } from "../../core/kv/list_options.ts";
import { openCursor, sealCursor } from "../../core/kv/list_cursor.ts";
import type { AppEnv } from "../middleware.ts";
import {
  hasIdShape,
  ID_SHAPES,
  idParam,
  invalidQueryParameter,
  queryChoice,
  queryInteger,
  queryValue,
} from "../params.ts";
import { readJsonBody } from "../validation.ts";
import {
  type ApiRoute,
  enumQuery,
  integerQuery,
  TEXT_QUERY,
  TIME_QUERY,
} from "../openapi/declare_route.ts";
import type { QueryParameter } from "../openapi/declare_route.ts";

/** An admin route's declaration: tagged `admin`, the admin token, admin errors. */
export const adminRoute = <const Path extends string>(
  route: Omit<ApiRoute, "security" | "errors" | "tag" | "path"> & { path: Path; tag?: string },
): ApiRoute<Path> => ({ tag: "admin", ...route, security: "admin", errors: "admin" });

const ADMIN_BODY_LIMIT = 1024 * 1024;

/** The JSON body of an admin request (1 MB at most). */
export const adminBody = (request: Request) => readJsonBody(request, ADMIN_BODY_LIMIT);

/** The JSON body of an admin request whose body may be left out (then `{}`). */
export function optionalAdminBody(request: Request): Promise<Record<string, unknown>> {
  const empty = !request.body || request.headers.get("content-length") === "0";
  return empty ? Promise.resolve({}) : adminBody(request);
}

export function timeParam(url: URL, name: string): number | undefined {
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

/** `?cursor=&limit=&order=&since=&until=` of every admin list, as the OpenAPI document says. */
export const LIST_QUERY: QueryParameter[] = [
  {
    name: "limit",
    description: "records a page, 1-1000 (default 50)",
    schema: integerQuery(1, 1000),
  },
  { name: "cursor", description: "the `cursor` of the previous page", schema: TEXT_QUERY },
  {
    name: "order",
    description: "`desc` (newest first, default) or `asc`",
    schema: enumQuery(["asc", "desc"]),
  },
  { name: "since", description: "ISO 8601 time, inclusive", schema: TIME_QUERY },
  { name: "until", description: "ISO 8601 time, inclusive", schema: TIME_QUERY },
];

/** `?cursor=&limit=&order=asc|desc&since=&until=` of an admin list; newest first by default. */
export function listOptions(url: URL): ListOptions {
  const limit = queryInteger(url, "limit", { min: 1, max: 1000, fallback: 50 });
  const order = queryChoice(url, "order", { allowed: ["asc", "desc"], fallback: "desc" })!;
  const given = queryValue(url, "cursor") || undefined;
  const opened = given === undefined ? undefined : openCursor(given);
  if (opened && "problem" in opened) throw invalidCursor(opened.problem);
  const cursor = opened?.inner;
  const since = timeParam(url, "since");
  const until = timeParam(url, "until");
  if (since !== undefined && until !== undefined && since > until) {
    throw invalidQueryParameter("since", "must not be later than until");
  }
  return { cursor, limit, order, since, until };
}

/** `?key=` as the OpenAPI document says. */
export const KEY_FILTER: QueryParameter = {
  name: "key",
  description: "a key id",
  schema: TEXT_QUERY,
};

/** The `?key=` filter of the ledger and the request log: a key id, or absent. */
export function keyFilter(url: URL): string | undefined {
  const key = queryValue(url, "key") || undefined;
  if (key !== undefined && !hasIdShape(key, "key")) {
    throw invalidQueryParameter("key", `must be a key id (${ID_SHAPES.key.looksLike})`);
  }
  return key;
}

/** 400 `invalid_cursor`: `?cursor=` is not one this API gave for this list. */
function invalidCursor(why: string): GatewayError {
  return new GatewayError("invalid_cursor", 400, `The query parameter 'cursor' ${why}`, {
    param: "cursor",
  });
}

/**
 * Reads a page of a list whose options came from `listOptions`: KV's refusal of the cursor is a
 * 400 naming it, and the page's cursor is sealed (core/kv/list_cursor.ts) for the client.
 */
export async function listed<T extends { cursor: string | null }>(
  options: ListOptions,
  read: () => Promise<T>,
): Promise<T> {
  let page: T;
  try {
    page = await read();
  } catch (error) {
    const refusal = options.cursor === undefined ? undefined : cursorRefusal(error);
    if (refusal) throw invalidCursor(refusal);
    throw error;
  }
  return { ...page, cursor: page.cursor === null ? null : sealCursor(page.cursor) };
}

export const keyNotFound = (id: string) =>
  new GatewayError("key_not_found", 404, `No key has the id '${id}'`);
export const channelNotFound = (id: string) =>
  new GatewayError("channel_not_found", 404, `No channel has the id '${id}'`);

/** A catalog id as PUT may create it: 1-200 characters, no spaces (control characters are refused for every path). */
export function newModelId(id: string): string {
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

export const accountNotFound = (id: string) =>
  new GatewayError("account_not_found", 404, `No account has the id '${id}'`);
export const accountId = (c: Context<AppEnv>) =>
  idParam(c, "id", { shape: "account", notFound: accountNotFound });
export const keyId = (c: Context<AppEnv>) =>
  idParam(c, "id", { shape: "key", notFound: keyNotFound });
export const channelId = (c: Context<AppEnv>) =>
  idParam(c, "id", { shape: "channel", notFound: channelNotFound });
