/** Paging, order and time range of admin lists, and the KV selectors they become. */

import type { KvBackendListOptions } from "./kv_backend.ts";

/** How an admin list is read: newest first unless `order` is `asc`; `since`/`until` in ms. */
export interface ListOptions {
  cursor?: string;
  limit: number;
  order: "asc" | "desc";
  /** Inclusive lower bound, epoch ms. */
  since?: number;
  /** Inclusive upper bound, epoch ms. */
  until?: number;
}

/** The first 9 characters after `prefix_` of a time-ordered id (see `timeOrderedId`) for `ms`. */
export function idTimeBound(idPrefix: string, ms: number): string {
  return `${idPrefix}_${Math.max(0, Math.floor(ms)).toString(36).padStart(9, "0")}`;
}

/**
 * A KV selector over `prefix` whose next key part orders by time, limited to
 * [`since`, `until`]. `boundOf(ms)` is the smallest key part written at `ms`.
 */
export function timeRangeSelector(
  prefix: Deno.KvKey,
  boundOf: (ms: number) => Deno.KvKeyPart,
  range: Pick<ListOptions, "since" | "until">,
): Deno.KvListSelector {
  const start = range.since === undefined ? undefined : [...prefix, boundOf(range.since)];
  const end = range.until === undefined ? undefined : [...prefix, boundOf(range.until + 1)];
  if (start && end) return { start, end };
  if (start) return { prefix, start };
  if (end) return { prefix, end };
  return { prefix };
}

/** The KV list options for `options`. */
export function kvListOptions(options: ListOptions): KvBackendListOptions {
  return { cursor: options.cursor, limit: options.limit, reverse: options.order === "desc" };
}

/** The longest cursor accepted: KV keys are at most 2 KiB, so their base64 is under 2,800. */
export const MAX_CURSOR_CHARS = 2_800;

/**
 * Why `cursor` cannot be a cursor of a KV list (base64url of a key's tail), or undefined when it
 * may be one. KV decides the rest when the list is read (see `cursorRefusal`).
 */
export function cursorShapeProblem(cursor: string): string | undefined {
  if (cursor.length > MAX_CURSOR_CHARS) {
    return `is ${cursor.length} characters long; cursors are at most ${MAX_CURSOR_CHARS}`;
  }
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(cursor)) {
    return "is not a cursor this API gave: cursors are base64url (letters, digits, '-', '_')";
  }
  return undefined;
}

/**
 * Why KV refused a list because of its cursor (it throws a TypeError on a cursor it cannot decode,
 * or one outside the list's range), or undefined when `error` is something else.
 */
export function cursorRefusal(error: unknown): string | undefined {
  if (!(error instanceof TypeError)) return undefined;
  const message = error.message;
  if (/invalid cursor/i.test(message)) return "is not a cursor this API gave";
  if (/cursor out of bounds/i.test(message)) {
    return "does not belong to this list (or to its since/until range); start again without it";
  }
  if (/key too large/i.test(message)) return "is too long to be a cursor this API gave";
  return undefined;
}
