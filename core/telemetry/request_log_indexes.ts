/**
 * The request log's indexes: KV has no secondary indexes, so the fields that pick few records
 * out of many (key, channel, model) each get their own key range, written in the commit that
 * writes the records, with the same expiry. One index entry names every record of a written batch
 * that has the same value (an index group): a batch of N requests of one key writes one key-index
 * entry, not N. The entry's key ends in the newest of its request ids (time-ordered), so an index
 * reads newest first and by time range like the log itself; the log's own key is the time index.
 * Its value lists each record's id and status (`id:status,…`), so a status filter beside the
 * indexed one is answered without reading the record. A group holds ids at most GROUP_SPAN_MS
 * older than its newest; a record alone (or a task's record, rewritten when the task ends) has the
 * layout written before groups existed: its own key whose value is its status. Status class and interface have a handful of values each:
 * a filter on them alone walks the log itself, page by page (request_log_query.ts), so they cost
 * no write per request.
 */

import { kvKeys } from "../kv/kv_keys.ts";
import type { RequestLogEntry } from "./request_log_entry.ts";

/** Every field a query filters on, in the order it prefers an index (most selective first). */
export const FILTER_FIELDS = ["key", "account", "channel", "model", "status", "interface"] as const;
export type FilterField = typeof FILTER_FIELDS[number];

/** The fields with an index. */
export const INDEXED_FIELDS = ["key", "account", "channel", "model"] as const;
export type IndexedField = typeof INDEXED_FIELDS[number];

/** Indexes written before status and interface lost theirs: the retention sweep deletes them. */
const FORMER_INDEXED_FIELDS = ["status", "interface"] as const;

/** How much older than a group's newest id its other ids may be: queries widen `until` by it. */
export const GROUP_SPAN_MS = 10_000;

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
    case "account":
      return entry.account_id ?? null;
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

/** One index entry: a record's own (its status) or a group's (`id:status,…`, oldest first). */
export type IndexValue = number | string;

/** The epoch ms a time-ordered id was made at. */
export function idTimeOf(id: string): number {
  return parseInt(id.slice(id.indexOf("_") + 1, id.indexOf("_") + 10), 36);
}

/**
 * The index entries that name `entries` (one written batch): per indexed field and value, one
 * group entry per GROUP_SPAN_MS of ids, keyed by its newest id; a record alone in its group and a
 * task's pending record get their own entry.
 */
export function indexGroupsOf(
  entries: readonly RequestLogEntry[],
): Array<{ key: Deno.KvKey; value: IndexValue }> {
  const written: Array<{ key: Deno.KvKey; value: IndexValue }> = [];
  for (const field of INDEXED_FIELDS) {
    const byValue = new Map<string, RequestLogEntry[]>();
    for (const entry of entries) {
      const value = indexValueOf(entry, field);
      if (value === null) continue;
      if (entry.task_pending) {
        written.push({ key: kvKeys.requestBy(field, value, entry.id), value: entry.status });
        continue;
      }
      const members = byValue.get(value);
      if (members) members.push(entry);
      else byValue.set(value, [entry]);
    }
    for (const [value, members] of byValue) {
      members.sort((a, b) => a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
      for (let start = 0; start < members.length;) {
        const oldest = idTimeOf(members[start].id) - GROUP_SPAN_MS;
        let end = start + 1;
        while (end < members.length && idTimeOf(members[end].id) >= oldest) end++;
        const key = kvKeys.requestBy(field, value, members[start].id);
        written.push({
          key,
          value: end - start === 1 ? members[start].status : members.slice(start, end).reverse()
            .map((entry) => `${entry.id}:${entry.status}`).join(","),
        });
        start = end;
      }
    }
  }
  return written;
}

/** The ids and statuses an index entry names, oldest first. */
export function membersOf(
  key: Deno.KvKey,
  value: IndexValue,
): Array<{ id: string; status: number }> {
  if (typeof value !== "string") return [{ id: String(key.at(-1)), status: value }];
  return value.split(",").map((member) => {
    const colon = member.lastIndexOf(":");
    return { id: member.slice(0, colon), status: Number(member.slice(colon + 1)) };
  });
}
