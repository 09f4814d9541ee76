/**
 * Walks one index of the request log (request_log_indexes.ts) in exact request-id order. Index
 * entries are keyed by the newest id they name and hold ids at most GROUP_SPAN_MS older, so the
 * spans of two entries may overlap (a request that ran longer than a flush is written after newer
 * ones). Reading newest first, a member newer than the entry being read is final: every entry
 * after it names older ids only. Reading oldest first, a member more than GROUP_SPAN_MS older than
 * the entry being read is final. Members wait in a small buffer until then.
 */

import { idTimeBound, type ListOptions } from "../kv/list_options.ts";
import { GROUP_SPAN_MS, idTimeOf, type IndexValue, membersOf } from "./request_log_indexes.ts";
import type { KvBackend } from "../kv/kv_backend.ts";

export interface IndexMember {
  id: string;
  status: number;
}

/** Whether request `id` was made within `since`/`until`. */
export function inRange(id: string, options: Pick<ListOptions, "since" | "until">): boolean {
  const bound = id.slice(0, 13);
  if (options.since !== undefined && bound < idTimeBound("req", options.since)) return false;
  if (options.until !== undefined && bound >= idTimeBound("req", options.until + 1)) return false;
  return true;
}

/** The KV selector of the entries under `prefix` that may name a member the walk wants. */
function selectorOf(
  prefix: Deno.KvKey,
  options: Pick<ListOptions, "order" | "since" | "until"> & { after?: string },
): Deno.KvListSelector | null {
  const bound = (ms: number) => idTimeBound("req", ms);
  let start = options.since === undefined ? undefined : bound(options.since);
  let end = options.until === undefined ? undefined : bound(options.until + GROUP_SPAN_MS + 1);
  const after = options.after;
  if (after !== undefined && options.order === "desc") {
    const last = bound(idTimeOf(after) + GROUP_SPAN_MS + 1);
    if (end === undefined || last < end) end = last;
  } else if (after !== undefined && (start === undefined || after > start)) start = after;
  if (start !== undefined && end !== undefined) {
    return start < end ? { start: [...prefix, start], end: [...prefix, end] } : null;
  }
  if (start !== undefined) return { prefix, start: [...prefix, start] };
  if (end !== undefined) return { prefix, end: [...prefix, end] };
  return { prefix };
}

/**
 * The members of the index under `prefix` within `since`/`until` and after the member `after`,
 * in `order` of their ids.
 */
export async function* indexMembers(
  kv: KvBackend,
  prefix: Deno.KvKey,
  options: Pick<ListOptions, "order" | "since" | "until"> & { after?: string },
): AsyncGenerator<IndexMember> {
  const selector = selectorOf(prefix, options);
  if (!selector) return;
  const desc = options.order === "desc";
  const after = options.after;
  const wanted = (id: string) =>
    inRange(id, options) && (after === undefined || (desc ? id < after : id > after));
  const inOrder = desc
    ? (a: IndexMember, b: IndexMember) => a.id < b.id ? 1 : a.id > b.id ? -1 : 0
    : (a: IndexMember, b: IndexMember) => a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  let waiting: IndexMember[] = [];
  for await (const entry of kv.list<IndexValue>(selector, { reverse: desc, batchSize: 500 })) {
    const key = String(entry.key.at(-1));
    const oldest = idTimeOf(key) - GROUP_SPAN_MS;
    const final = desc
      ? (member: IndexMember) => member.id > key
      : (member: IndexMember) => idTimeOf(member.id) < oldest;
    let ready = 0;
    while (ready < waiting.length && final(waiting[ready])) ready++;
    if (ready) {
      const out = waiting.slice(0, ready);
      waiting = waiting.slice(ready);
      yield* out;
    }
    for (const member of membersOf(entry.key, entry.value)) {
      if (wanted(member.id)) waiting.push(member);
    }
    waiting.sort(inOrder);
  }
  yield* waiting;
}
