/**
 * Reading the request log with filters. A query with a request id reads that one record. Any
 * other query walks one key range: the index of the most selective filter given (key, channel,
 * model, in that order) or the log itself, within since/until, and checks the other filters on
 * each record (a status filter on the index's value first, without reading the record). A page
 * stops when it has `limit` records or has read SCAN_LIMIT records' keys or index members,
 * whichever comes first; then it returns what it found (perhaps nothing) and a cursor to go on
 * (request_log_cursor.ts). So a page never costs more than SCAN_LIMIT reads however rare the
 * match. Through an index, records come in exact request-id order (request_log_index_walk.ts).
 */

import { recordOf } from "./request_log_record.ts";
import { kvKeys } from "../kv/kv_keys.ts";
import {
  idTimeBound,
  kvListOptions,
  type ListOptions,
  timeRangeSelector,
} from "../kv/list_options.ts";
import {
  FILTER_FIELDS,
  INDEXED_FIELDS,
  indexValueOf,
  statusClassOf,
} from "./request_log_indexes.ts";
import { indexCursor, readRequestLogCursor } from "./request_log_cursor.ts";
import { indexMembers, inRange } from "./request_log_index_walk.ts";
import type { KvBackend } from "../kv/kv_backend.ts";
import type { RequestLogEntry } from "./request_log_entry.ts";

/** Keys read at most per page. */
export const SCAN_LIMIT = 2_000;

/** What a query may ask for; every field given must match. */
export interface RequestFilter {
  key?: string;
  /** The records of every key of one account. */
  account?: string;
  model?: string;
  channel?: string;
  /** A class (`2xx`…`5xx`) or an exact code (`404`). */
  status?: string;
  interface?: string;
  request_id?: string;
}

function matches(entry: RequestLogEntry, filter: RequestFilter, cutoff: number): boolean {
  if (Date.parse(entry.at) < cutoff) return false;
  for (const field of FILTER_FIELDS) {
    const wanted = filter[field];
    if (wanted === undefined) continue;
    if (field === "status" && /^\d{3}$/.test(wanted)) {
      if (String(entry.status) !== wanted) return false;
    } else if (indexValueOf(entry, field) !== wanted) return false;
  }
  return true;
}

/** Whether `status` passes a status filter (a class or an exact code; none passes all). */
function statusMatches(status: number, wanted: string | undefined): boolean {
  if (wanted === undefined || !Number.isInteger(status)) return true;
  return /^\d{3}$/.test(wanted) ? String(status) === wanted : statusClassOf(status) === wanted;
}

/** One page of the log's records that match `options.filter`. */
export async function queryRequestLog(
  kv: KvBackend,
  options: ListOptions & { filter: RequestFilter; retentionMs: number },
): Promise<{ data: RequestLogEntry[]; cursor: string | null }> {
  const { filter, limit } = options;
  const cutoff = Date.now() - options.retentionMs;
  if (filter.request_id !== undefined) {
    const record = recordOf((await kv.get(kvKeys.requestLog(filter.request_id))).value);
    const found = record && inRange(record.id, options) && matches(record, filter, cutoff);
    return { data: found ? [record] : [], cursor: null };
  }
  const field = INDEXED_FIELDS.find((name) => filter[name] !== undefined);
  const start = readRequestLogCursor(options.cursor);
  const data: RequestLogEntry[] = [];
  let scanned = 0;
  let cursor: string | null = null;
  let ids: string[] = [];
  const fetchIds = async () => {
    for (let i = 0; i < ids.length; i += 10) {
      const found = await kv.getMany(ids.slice(i, i + 10).map((id) => kvKeys.requestLog(id)));
      for (const { value } of found) {
        const record = recordOf(value);
        if (record && matches(record, filter, cutoff)) data.push(record);
      }
    }
    ids = [];
  };
  const full = () => data.length >= limit || scanned >= SCAN_LIMIT;
  if (field) {
    if (start.kv !== undefined) throw new TypeError("invalid cursor");
    const members = indexMembers(kv, kvKeys.requestsBy(field, filter[field]!), {
      ...options,
      after: start.after,
    });
    let last: string | undefined;
    for await (const member of members) {
      if (last !== undefined && full()) {
        cursor = indexCursor(last);
        break;
      }
      scanned++;
      last = member.id;
      // The index's value, the status, answers a status filter without reading the record.
      if (statusMatches(member.status, filter.status)) ids.push(member.id);
      // Never fetch more candidates than the page can still take, so the cursor stays exact.
      if (ids.length >= Math.min(10, limit - data.length)) await fetchIds();
    }
  } else {
    if (start.after !== undefined) throw new TypeError("invalid cursor");
    const iterator = kv.list(
      timeRangeSelector(kvKeys.requestLogs(), (ms) => idTimeBound("req", ms), options),
      { ...kvListOptions({ ...options, cursor: start.kv }), limit: undefined, batchSize: 500 },
    );
    for await (const entry of iterator) {
      scanned++;
      const record = recordOf(entry.value);
      if (record && matches(record, filter, cutoff)) data.push(record);
      if (full()) {
        cursor = iterator.cursor;
        break;
      }
    }
  }
  if (ids.length) await fetchIds();
  return { data, cursor };
}
