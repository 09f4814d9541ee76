/**
 * The request log's indexes: KV has no secondary indexes, so the fields that pick few records
 * out of many (key, channel, model) each get their own key range, written in the commit that
 * writes the record, with the same expiry. An index key ends in the request id (time-ordered),
 * so an index reads newest first and by time range like the log itself; the log's own key is the
 * time index. Its value is the request's status, so a status filter beside the indexed one is
 * answered without reading the record. Status class and interface have a handful of values each:
 * a filter on them alone walks the log itself, page by page (request_log_query.ts), so they cost
 * no write per request.
 */

import { kvKeys } from "../kv/kv_keys.ts";
import type { RequestLogEntry } from "./request_log.ts";

/** Every field a query filters on, in the order it prefers an index (most selective first). */
export const FILTER_FIELDS = ["key", "channel", "model", "status", "interface"] as const;
export type FilterField = typeof FILTER_FIELDS[number];

/** The fields with an index. */
export const INDEXED_FIELDS = ["key", "channel", "model"] as const;
export type IndexedField = typeof INDEXED_FIELDS[number];

/** Indexes written before status and interface lost theirs: the retention sweep deletes them. */
const FORMER_INDEXED_FIELDS = ["status", "interface"] as const;

/** `404` → `4xx`. */
export function statusClassOf(status: number): string {
  return `${Math.floor(status / 100)}xx`;
}

/**
 * The value of `field` that `entry` is filtered (and, for an indexed field, indexed) under, or
 * null when it has none (records written before a field existed may lack it).
 */
export function indexValueOf(entry: RequestLogEntry, field: FilterField): string | null {
  const value = fieldOf(entry, field);
  return typeof value === "string" ? value : null;
}

function fieldOf(entry: RequestLogEntry, field: FilterField): string | null {
  switch (field) {
    case "key":
      return entry.key_id;
    case "channel":
      return entry.channel_id;
    case "model":
      return entry.model;
    case "status":
      return Number.isInteger(entry.status) ? statusClassOf(entry.status) : null;
    case "interface":
      return entry.interface;
  }
}

function keysOf(
  entry: RequestLogEntry,
  fields: readonly FilterField[],
): Array<{ key: Deno.KvKey; value: number }> {
  return fields.flatMap((field) => {
    const value = indexValueOf(entry, field);
    return value === null
      ? []
      : [{ key: kvKeys.requestBy(field, value, entry.id), value: entry.status }];
  });
}

/** The index keys (and their value) to write with `entry`. */
export function indexEntriesOf(
  entry: RequestLogEntry,
): Array<{ key: Deno.KvKey; value: number }> {
  return keysOf(entry, INDEXED_FIELDS);
}

/** Every index key `entry` may have, those of former indexes too: what deleting it deletes. */
export function indexKeysEverOf(entry: RequestLogEntry): Deno.KvKey[] {
  return keysOf(entry, [...INDEXED_FIELDS, ...FORMER_INDEXED_FIELDS]).map((index) => index.key);
}
