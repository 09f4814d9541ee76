/**
 * Usage rollups: per hour (of the request's id, i.e. when it started), key, model and channel,
 * seven KvU64 counters summed in the commit that writes the request's record. `GET /admin/usage`
 * reads only these, never the log. A task's request is counted once, when its task ends (with
 * what its ledger entries took: a refunded task costs 0, a partly refunded one what was kept).
 */

import { kvKeys } from "../kv/kv_keys.ts";
import type { KvAtomic, KvBackend } from "../kv/kv_backend.ts";
import type { RequestLogEntry } from "./request_log_entry.ts";

export const USAGE_COUNTERS = [
  "requests",
  "input_tokens",
  "cached_input_tokens",
  "output_tokens",
  "billed_ms",
  "images",
  "cost",
] as const;
type Counter = typeof USAGE_COUNTERS[number];

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The epoch ms a time-ordered request id was made at (`req_` + 9 base-36 digits…). */
export function requestTimeOf(id: string): number {
  return parseInt(id.slice(id.indexOf("_") + 1, id.indexOf("_") + 10), 36);
}

function countersOf(entry: RequestLogEntry): Record<Counter, number> {
  return {
    requests: 1,
    input_tokens: entry.input_tokens,
    cached_input_tokens: entry.cached_input_tokens,
    output_tokens: entry.output_tokens,
    billed_ms: Math.round((entry.billed_seconds ?? 0) * 1000),
    images: entry.images ?? 0,
    cost: entry.cost,
  };
}

/** The rollup bucket `entry` counts in: hour, key, model, channel, as one string. */
export function rollupBucketOf(entry: RequestLogEntry): string {
  const hour = Math.floor(requestTimeOf(entry.id) / HOUR_MS) * HOUR_MS;
  return JSON.stringify([hour, entry.key_id ?? "", entry.model ?? "", entry.channel_id ?? ""]);
}

/** Sums written at most per distinct bucket of a batch (one per counter). */
export const SUMS_PER_BUCKET = USAGE_COUNTERS.length;

/** Adds to `atomic` the counter sums of `entries`, one sum per counter and distinct bucket. */
export function addRollups(atomic: KvAtomic, entries: readonly RequestLogEntry[]) {
  const buckets = new Map<string, { key: Deno.KvKey[]; counters: Record<Counter, number> }>();
  for (const entry of entries) {
    const hour = Math.floor(requestTimeOf(entry.id) / HOUR_MS) * HOUR_MS;
    const parts = {
      key: entry.key_id ?? "",
      model: entry.model ?? "",
      channel: entry.channel_id ?? "",
    };
    const id = rollupBucketOf(entry);
    let bucket = buckets.get(id);
    if (!bucket) {
      bucket = {
        key: USAGE_COUNTERS.map((counter) => [...kvKeys.usage(hour, { ...parts, counter })]),
        counters: Object.fromEntries(USAGE_COUNTERS.map((c) => [c, 0])) as Record<Counter, number>,
      };
      buckets.set(id, bucket);
    }
    const counters = countersOf(entry);
    for (const counter of USAGE_COUNTERS) bucket.counters[counter] += counters[counter];
  }
  for (const bucket of buckets.values()) {
    USAGE_COUNTERS.forEach((counter, index) => {
      const value = bucket.counters[counter];
      if (value > 0) atomic.sum(bucket.key[index], BigInt(value));
    });
  }
}

export type UsageGroup = "key" | "model" | "channel";

export interface UsageQuery {
  /** Inclusive, epoch ms (rounded down to the hour). */
  from: number;
  /** Exclusive, epoch ms (rounded up to the hour). */
  to: number;
  interval: "hour" | "day";
  groupBy: readonly UsageGroup[];
  /** Only this key's usage (a key holder's own view). */
  keyId?: string;
}

export interface UsageRow {
  start: string;
  key_id?: string | null;
  model?: string | null;
  channel_id?: string | null;
  requests: number;
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  seconds: number;
  images: number;
  cost: number;
}

/** Totals per interval and group from the rollups of [from, to). */
export async function readUsage(kv: KvBackend, query: UsageQuery): Promise<UsageRow[]> {
  const from = Math.floor(query.from / HOUR_MS) * HOUR_MS;
  const to = Math.ceil(query.to / HOUR_MS) * HOUR_MS;
  const rows = new Map<string, UsageRow & { billed_ms: number }>();
  for await (const entry of rollupEntries(kv, { from, to, keyId: query.keyId })) {
    const [, hour, key, model, channel, counter] = entry.key as [
      string,
      number,
      string,
      string,
      string,
      Counter,
    ];
    const start = query.interval === "hour" ? hour : Math.floor(hour / DAY_MS) * DAY_MS;
    const group = {
      ...(query.groupBy.includes("key") ? { key_id: key || null } : {}),
      ...(query.groupBy.includes("model") ? { model: model || null } : {}),
      ...(query.groupBy.includes("channel") ? { channel_id: channel || null } : {}),
    };
    const id = JSON.stringify([start, group]);
    let row = rows.get(id);
    if (!row) {
      row = {
        start: new Date(start).toISOString(),
        ...group,
        requests: 0,
        input_tokens: 0,
        cached_input_tokens: 0,
        output_tokens: 0,
        seconds: 0,
        billed_ms: 0,
        images: 0,
        cost: 0,
      };
      rows.set(id, row);
    }
    if (!(USAGE_COUNTERS as readonly string[]).includes(counter)) continue;
    row[counter] += Number(
      typeof entry.value === "bigint" ? entry.value : (entry.value as Deno.KvU64).value,
    );
  }
  return [...rows.values()]
    .map(({ billed_ms, ...row }) => ({ ...row, seconds: billed_ms / 1000 }))
    .sort((a, b) => compareRows(a, b));
}

/**
 * Rows of several reads (one per key of an account) as one read's: rows of the same interval and
 * group summed, sorted as `readUsage` sorts.
 */
export function mergeUsageRows(rows: readonly UsageRow[]): UsageRow[] {
  const merged = new Map<string, UsageRow>();
  for (const row of rows) {
    const id = JSON.stringify([row.start, row.key_id, row.model, row.channel_id]);
    const found = merged.get(id);
    if (!found) {
      merged.set(id, { ...row });
      continue;
    }
    for (const counter of SUMMED) found[counter] += row[counter];
  }
  return [...merged.values()].sort(compareRows);
}

const SUMMED = [
  "requests",
  "input_tokens",
  "cached_input_tokens",
  "output_tokens",
  "seconds",
  "images",
  "cost",
] as const;

/** Hours of one key's rollups listed at once. */
const HOURS_AT_ONCE = 32;

/**
 * The rollup counters of [from, to): all of them, or one key's. Rollups are keyed hour first,
 * so one key's are read hour by hour (`[usage, hour, key]`), never by scanning every key's.
 */
async function* rollupEntries(
  kv: KvBackend,
  { from, to, keyId }: { from: number; to: number; keyId?: string },
): AsyncGenerator<Deno.KvEntry<Deno.KvU64 | bigint>> {
  if (keyId === undefined) {
    yield* kv.list<Deno.KvU64 | bigint>(
      { start: [...kvKeys.usages(), from], end: [...kvKeys.usages(), to] },
      { batchSize: 1000 },
    );
    return;
  }
  for (let start = from; start < to; start += HOURS_AT_ONCE * HOUR_MS) {
    const hours: number[] = [];
    for (let hour = start; hour < to && hours.length < HOURS_AT_ONCE; hour += HOUR_MS) {
      hours.push(hour);
    }
    const lists = await Promise.all(hours.map(async (hour) => {
      const found: Deno.KvEntry<Deno.KvU64 | bigint>[] = [];
      const entries = kv.list<Deno.KvU64 | bigint>({ prefix: [...kvKeys.usages(), hour, keyId] });
      for await (const entry of entries) found.push(entry);
      return found;
    }));
    for (const list of lists) yield* list;
  }
}

function compareRows(a: UsageRow, b: UsageRow): number {
  for (const field of ["start", "key_id", "model", "channel_id"] as const) {
    const left = a[field] ?? "";
    const right = b[field] ?? "";
    if (left !== right) return left < right ? -1 : 1;
  }
  return 0;
}
