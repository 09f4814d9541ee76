/**
 * Path parameters and query values, checked before anything reads them: odd input is a 400 that
 * names the parameter (or a 404 for an id of a shape no record has), never a 500.
 *
 * - Every path parameter of every route is checked once by the request-context middleware
 *   (`checkPathParams`): valid percent-encoding of UTF-8, at most 256 characters, no control
 *   characters. Handlers then read it with `c.req.param()`, which decodes the same way.
 * - Ids with a known shape (`key_…`, `task_…`, channel ids) are checked by `idParam` before KV is
 *   asked; a wrong shape is the not-found answer of that record, naming the parameter.
 * - Query values are read with `queryValue`: strict percent-decoding, at most once, bounded.
 */

import type { Context } from "hono";
import { routePath } from "hono/route";
import { GatewayError } from "../core/errors.ts";

const MAX_PATH_PARAM_CHARS = 256;
const MAX_QUERY_VALUE_CHARS = 4096;
// deno-lint-ignore no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

function invalidPathParameter(name: string, why: string): GatewayError {
  return new GatewayError("invalid_request", 400, `The path parameter '${name}' ${why}`, {
    param: name,
  });
}

function invalidQueryParameter(name: string, why: string): GatewayError {
  return new GatewayError("invalid_request", 400, `The query parameter '${name}' ${why}`, {
    param: name,
  });
}

/** A route template's segments, split on `/` outside `{…}` (a parameter's pattern may hold `/`). */
function templateSegments(template: string): string[] {
  const segments: string[] = [];
  let depth = 0;
  let current = "";
  for (const char of template) {
    if (char === "{") depth++;
    else if (char === "}") depth--;
    if (char === "/" && depth === 0) {
      segments.push(current);
      current = "";
    } else current += char;
  }
  segments.push(current);
  return segments;
}

/** What is shown of a value that was refused: short, and printable. */
function shown(value: string): string {
  // deno-lint-ignore no-control-regex
  const printable = value.replace(/[\u0000-\u001f\u007f]/g, "?");
  return printable.length > 60 ? `${printable.slice(0, 60)}…` : printable;
}

/** Decodes one percent-encoded component strictly, or returns undefined. */
function strictDecode(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/**
 * Checks every parameter of the route that matched `c` against the raw request path: each must
 * decode as UTF-8, be at most 256 characters and hold no control characters.
 */
export function checkPathParams(c: Context, pathname: string): void {
  const template = routePath(c, -1);
  if (!template || !template.includes(":")) return;
  const parts = templateSegments(template);
  const raw = pathname.split("/");
  parts.forEach((part, index) => {
    if (!part.startsWith(":")) return;
    const name = part.slice(1).replace(/\{.*$/, "").replace(/\?$/, "");
    const value = raw[index];
    if (value === undefined) return;
    const decoded = strictDecode(value);
    if (decoded === undefined) {
      throw invalidPathParameter(
        name,
        `is not valid percent-encoded UTF-8: '${shown(value)}'`,
      );
    }
    if (decoded.length > MAX_PATH_PARAM_CHARS) {
      throw invalidPathParameter(
        name,
        `is ${decoded.length} characters long; at most ${MAX_PATH_PARAM_CHARS} are accepted`,
      );
    }
    if (CONTROL_CHARACTERS.test(decoded)) {
      throw invalidPathParameter(name, `holds control characters: '${shown(decoded)}'`);
    }
  });
}

/** Id shapes the gateway makes; anything else cannot name a record. */
export const ID_SHAPES = {
  key: { pattern: /^key_[0-9A-Za-z]{1,64}$/, looksLike: "key_ followed by letters and digits" },
  account: {
    pattern: /^acct_[0-9A-Za-z]{1,64}$/,
    looksLike: "acct_ followed by letters and digits",
  },
  task: { pattern: /^task_[0-9A-Za-z]{1,64}$/, looksLike: "task_ followed by letters and digits" },
  channel: {
    pattern: /^[A-Za-z0-9_.-]{1,100}$/,
    looksLike: "1-100 letters, digits, '_', '.' or '-'",
  },
  webhook: {
    pattern: /^[A-Za-z0-9_.-]{1,100}$/,
    looksLike: "1-100 letters, digits, '_', '.' or '-'",
  },
  delivery: {
    pattern: /^whd_[0-9A-Za-z]{1,64}$/,
    looksLike: "whd_ followed by letters and digits",
  },
  redemptionBatch: {
    pattern: /^rb_[0-9A-Za-z]{1,64}$/,
    looksLike: "rb_ followed by letters and digits",
  },
  redemptionCode: {
    pattern: /^rc_[0-9A-Za-z]{1,64}$/,
    looksLike: "rc_ followed by letters and digits",
  },
} as const;

export type IdShape = keyof typeof ID_SHAPES;

/** Whether `value` has the shape of an id of kind `shape`. */
export function hasIdShape(value: string, shape: IdShape): boolean {
  return ID_SHAPES[shape].pattern.test(value);
}

/**
 * The path parameter `name`, which must have the shape of an id of kind `shape`; otherwise
 * `notFound` (the route's own 404) with the parameter named and the shape said.
 */
export function idParam(
  c: Context,
  name: string,
  { shape, notFound }: { shape: IdShape; notFound: (id: string) => GatewayError },
): string {
  const value = c.req.param(name) ?? "";
  if (hasIdShape(value, shape)) return value;
  const base = notFound(shown(value));
  throw new GatewayError(
    base.code,
    base.status,
    `${base.message} (${name} must be ${ID_SHAPES[shape].looksLike})`,
    { param: name },
  );
}

/** The raw `name=value` pairs of a query string, names decoded; a pair whose name does not decode is skipped. */
function queryPairs(search: string): Array<{ name: string; raw: string }> {
  const pairs: Array<{ name: string; raw: string }> = [];
  for (const part of search.replace(/^\?/, "").split("&")) {
    if (!part) continue;
    const at = part.indexOf("=");
    const rawName = at < 0 ? part : part.slice(0, at);
    const name = strictDecode(rawName.replaceAll("+", " "));
    if (name === undefined) continue;
    pairs.push({ name, raw: at < 0 ? "" : part.slice(at + 1) });
  }
  return pairs;
}

/**
 * The query value `name` of `url`, decoded strictly: absent is undefined; bad percent-encoding,
 * a value given twice, or one over 4,096 characters is a 400 naming it.
 */
export function queryValue(url: URL, name: string): string | undefined {
  const found = queryPairs(url.search).filter((pair) => pair.name === name);
  if (found.length === 0) return undefined;
  if (found.length > 1) {
    throw invalidQueryParameter(name, `is given ${found.length} times; give it once`);
  }
  const value = strictDecode(found[0].raw.replaceAll("+", " "));
  if (value === undefined) {
    throw invalidQueryParameter(
      name,
      `is not valid percent-encoded UTF-8: '${shown(found[0].raw)}'`,
    );
  }
  if (value.length > MAX_QUERY_VALUE_CHARS) {
    throw invalidQueryParameter(
      name,
      `is ${value.length} characters long; at most ${MAX_QUERY_VALUE_CHARS} are accepted`,
    );
  }
  if (CONTROL_CHARACTERS.test(value)) {
    throw invalidQueryParameter(name, `holds control characters: '${shown(value)}'`);
  }
  return value;
}

/**
 * The integer query value `name` in [`min`, `max`], or `fallback` when absent or empty; anything
 * else (a fraction, `1e400`, words) is a 400 naming it.
 */
export function queryInteger(
  url: URL,
  name: string,
  { min, max, fallback }: { min: number; max: number; fallback: number },
): number {
  const value = queryValue(url, name);
  if (value === undefined || value === "") return fallback;
  const parsed = /^[0-9]{1,10}$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
    throw invalidQueryParameter(
      name,
      `must be an integer from ${min} to ${max}, not '${shown(value)}'`,
    );
  }
  return parsed;
}

/** The query value `name`, which must be one of `allowed` (or absent: `fallback`). */
export function queryChoice<T extends string>(
  url: URL,
  name: string,
  { allowed, fallback }: { allowed: readonly T[]; fallback: T | undefined },
): T | undefined {
  const value = queryValue(url, name);
  if (value === undefined || value === "") return fallback;
  if (!(allowed as readonly string[]).includes(value)) {
    throw invalidQueryParameter(
      name,
      `must be ${allowed.map((choice) => `'${choice}'`).join(" or ")}, not '${shown(value)}'`,
    );
  }
  return value as T;
}

export { invalidQueryParameter };
