/**
 * The request log's indexes: KV has no secondary indexes, so each filterable field gets its own
 * key range, written in the commit that writes the record, with the same expiry. An index key
 * ends in the request id (time-ordered), so an index reads newest first and by time range like
 * the log itself. Its value is the request's status, small enough to filter exact codes without
 * reading the record.
 */

import { kvKeys } from "../kv/kv_keys.ts";
import type { RequestLogEntry } from "./request_log.ts";

/** The indexed fields, in the order a query prefers them (most selective first). */
export const INDEXED_FIELDS = ["key", "channel", "model", "status", "interface"] as const;
export type IndexedField = typeof INDEXED_FIELDS[number];

/** `404` → `4xx`. */
export function statusClassOf(status: number): string {
  return `${Math.floor(status / 100)}xx`;
}

/**
 * The value of `field` under which `entry` is indexed, or null when it has none (records written
 * before a field existed may lack it).
 */
export function indexValueOf(entry: RequestLogEntry, field: IndexedField): string | null {
  const value = fieldOf(entry, field);
  return typeof value === "string" ? value : null;
}

function fieldOf(entry: RequestLogEntry, field: IndexedField): string | null {
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

/** The index keys (and their value) to write with `entry`. */
export function indexEntriesOf(
  entry: RequestLogEntry,
): Array<{ key: Deno.KvKey; value: number }> {
  return INDEXED_FIELDS.flatMap((field) => {
    const value = indexValueOf(entry, field);
    return value === null
      ? []
      : [{ key: kvKeys.requestBy(field, value, entry.id), value: entry.status }];
  });
}
