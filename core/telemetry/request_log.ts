/**
 * The request log: one JSON line per request on stdout and one KV record with a retention period.
 * Writes are batched off the response path; `flush()` drains them (shutdown awaits it).
 * Entries hold ids, model, channel, status, latency, tokens and cost: never secrets or prompts.
 */

import { kvKeys } from "../kv/kv_keys.ts";
import type { ListOptions } from "../kv/list_options.ts";
import { INDEXED_FIELDS, indexEntriesOf, indexGroupsOf } from "./request_log_indexes.ts";
import { queryRequestLog, type RequestFilter } from "./request_log_query.ts";
import {
  addRollups,
  readUsage,
  rollupBucketOf,
  SUMS_PER_BUCKET,
  type UsageQuery,
  type UsageRow,
} from "./usage_rollups.ts";
import type { ChannelHealth, HealthWrite } from "./channel_health.ts";
import { recordOf, storedRecord } from "./request_log_record.ts";
import { withKvRetry } from "../kv/kv_retry.ts";
import type { KvBackend } from "../kv/kv_backend.ts";
import type { AttemptRecord, RequestLogEntry } from "./request_log_entry.ts";

export type { AttemptRecord, RequestLogEntry, UpstreamErrorClass } from "./request_log_entry.ts";

export const DEFAULT_RETENTION_MS = 7 * 24 * 3600 * 1000;
const FLUSH_MS = 200;
/** Health writes (~2 KB each at most) added to a batch's commit; more are committed alone. */
const MAX_HEALTH_WRITES_IN_BATCH = 50;
/**
 * KV allows 1,000 mutations and 800 KB per commit; stay well inside both. An entry is the record
 * and up to three indexes; its rollup bucket adds seven counter sums once per batch (entries of
 * one hour, key, model and channel share them), and health writes ride in the first batch.
 * Larger batches mean fewer commits and fewer sums per request.
 */
const MAX_BATCH_ENTRIES = 200;
const MAX_BATCH_MUTATIONS = 850 - MAX_HEALTH_WRITES_IN_BATCH;
const MAX_BATCH_BYTES = 400 * 1024;
/** Longest string field kept whole; longer ones are cut and the entry marked `truncated`. */
const MAX_FIELD_CHARS = 256;
const MAX_ATTEMPTS_KEPT = 20;
/** Unauthenticated requests (no key: 401s, 404s of random paths…) written per second at most. */
const ANONYMOUS_PER_SECOND = 20;
/** Entries waiting for a write at most; past it, new unauthenticated ones are dropped. */
const MAX_PENDING = 20_000;

function cut(value: string | null, marks: { truncated: boolean }): string | null {
  if (value === null || value.length <= MAX_FIELD_CHARS) return value;
  marks.truncated = true;
  return `${value.slice(0, MAX_FIELD_CHARS)}…`;
}

function fits(value: string | null | undefined): boolean {
  return value === null || value === undefined || value.length <= MAX_FIELD_CHARS;
}

/** Whether `entry` has nothing to cut (the usual case: no copy made). */
function isBounded(entry: RequestLogEntry): boolean {
  if (
    !fits(entry.route) || !fits(entry.model) || !fits(entry.error_code) || !fits(entry.outcome) ||
    entry.upstream_attempts.length > MAX_ATTEMPTS_KEPT
  ) return false;
  for (const attempt of entry.upstream_attempts) {
    if (!fits(attempt.url) || !fits(attempt.error)) return false;
  }
  const ignored = entry.ignored_fields;
  return !ignored || (ignored.length <= MAX_ATTEMPTS_KEPT && ignored.every((field) => fits(field)));
}

/**
 * `entry` with every client- or upstream-controlled string bounded, so one entry always fits a
 * KV value and a log line: long fields are cut and the entry says `truncated: true`.
 */
export function boundEntry(entry: RequestLogEntry): RequestLogEntry {
  if (isBounded(entry)) return entry;
  const marks = { truncated: false };
  const attempts = entry.upstream_attempts.slice(0, MAX_ATTEMPTS_KEPT).map((attempt) => ({
    ...attempt,
    url: cut(attempt.url, marks),
    error: attempt.error === undefined ? undefined : cut(attempt.error, marks)!,
  }));
  if (entry.upstream_attempts.length > MAX_ATTEMPTS_KEPT) marks.truncated = true;
  const bounded: RequestLogEntry = {
    ...entry,
    route: cut(entry.route, marks)!,
    model: cut(entry.model, marks),
    error_code: cut(entry.error_code, marks),
    outcome: cut(entry.outcome, marks)!,
    upstream_attempts: attempts,
    ...(entry.ignored_fields
      ? {
        ignored_fields: entry.ignored_fields.slice(0, MAX_ATTEMPTS_KEPT).map((f) => cut(f, marks)!),
      }
      : {}),
  };
  return marks.truncated ? { ...bounded, truncated: true } : bounded;
}

/**
 * Buffers request log entries and writes them in batches off the response path. One entry can
 * never cost another its record: entries are bounded, batches are split by count and bytes under
 * KV's commit limits, and a batch that fails is written again entry by entry. Unauthenticated
 * requests are written at most ANONYMOUS_PER_SECOND a second, so a flood of noise cannot crowd out
 * the records of paid requests; what is dropped is counted.
 */
export class RequestLog {
  #kv: KvBackend;
  #retentionMs: number;
  #toStdout: boolean;
  #pending: RequestLogEntry[] = [];
  #timer?: ReturnType<typeof setTimeout>;
  #flushing: Promise<void> = Promise.resolve();
  #anonymousSecond = 0;
  #anonymousInSecond = 0;
  #onDrop: () => void;
  #health?: ChannelHealth;

  constructor(
    kv: KvBackend,
    options: {
      retentionMs?: number;
      stdout?: boolean;
      onDrop?: () => void;
      /** Counts each batch's upstream attempts per channel, written with the batch. */
      health?: ChannelHealth;
    } = {},
  ) {
    this.#kv = kv;
    this.#health = options.health;
    this.#retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
    this.#toStdout = options.stdout ?? true;
    this.#onDrop = options.onDrop ?? (() => {});
  }

  /** Whether an unauthenticated entry may be written now (a per-second budget). */
  #admitAnonymous(): boolean {
    const second = Math.floor(Date.now() / 1000);
    if (second !== this.#anonymousSecond) {
      this.#anonymousSecond = second;
      this.#anonymousInSecond = 0;
    }
    return ++this.#anonymousInSecond <= ANONYMOUS_PER_SECOND;
  }

  /** Queues an entry; it is written within FLUSH_MS. */
  record(entry: RequestLogEntry): void {
    const anonymous = entry.key_id === null;
    if (anonymous && (this.#pending.length >= MAX_PENDING || !this.#admitAnonymous())) {
      this.#onDrop();
      return;
    }
    this.#pending.push(boundEntry(entry));
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      this.flush();
    }, FLUSH_MS);
  }

  /**
   * Counts upstream attempts that belong to no request record (the task worker's submissions and
   * generations) in channel health, written with the next batch, within FLUSH_MS.
   */
  countAttempts(attempts: readonly AttemptRecord[]): void {
    if (!this.#health || attempts.length === 0) return;
    for (const attempt of attempts) this.#health.note(attempt);
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      this.flush();
    }, FLUSH_MS);
  }

  /** Writes every queued entry now. */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#pending.splice(0);
    this.#flushing = this.#flushing.then(() => this.#write(batch)).catch((error) => {
      console.error(JSON.stringify({ msg: "request log write failed", error: String(error) }));
    });
    return this.#flushing;
  }

  async #write(entries: RequestLogEntry[]): Promise<void> {
    // Health counts ride in the first batch's commit when they are few (the usual case).
    let health = this.#health?.writesFor(entries) ?? [];
    if (entries.length === 0 || health.length > MAX_HEALTH_WRITES_IN_BATCH) {
      await this.#commitHealth(health);
      health = [];
    }
    if (entries.length === 0) return;
    if (this.#toStdout) {
      const text = entries.map((entry) => JSON.stringify({ msg: "request", ...entry })).join("\n");
      await Deno.stdout.write(new TextEncoder().encode(text + "\n"));
    }
    for (const batch of batchesOf(entries)) {
      try {
        await this.#commit(batch, health);
        health = [];
      } catch {
        // One bad entry must not take the others with it: write them one by one.
        for (const entry of batch) {
          await this.#commit([entry]).catch((error) => {
            this.#onDrop();
            console.error(JSON.stringify({
              msg: "request log entry not written",
              request_id: entry.id,
              error: String(error),
            }));
          });
        }
      }
    }
    await this.#commitHealth(health);
  }

  /** Health counts written alone (no entries to ride with, or too many to add to a batch). */
  async #commitHealth(health: HealthWrite[]): Promise<void> {
    for (let i = 0; i < health.length; i += MAX_HEALTH_WRITES_IN_BATCH) {
      await this.#commit([], health.slice(i, i + MAX_HEALTH_WRITES_IN_BATCH)).catch((error) => {
        console.error(JSON.stringify({ msg: "channel health not written", error: String(error) }));
      });
    }
  }

  async #commit(batch: RequestLogEntry[], health: HealthWrite[] = []): Promise<void> {
    if (batch.length === 0 && health.length === 0) return;
    const atomic = this.#kv.atomic();
    for (const entry of batch) {
      atomic.set(kvKeys.requestLog(entry.id), storedRecord(entry), {
        expireIn: this.#retentionMs,
      });
    }
    for (const index of indexGroupsOf(batch)) {
      atomic.set(index.key, index.value, { expireIn: this.#retentionMs });
    }
    addRollups(atomic, batch.filter((entry) => !entry.task_pending));
    for (const write of health) atomic.set(write.key, write.value, { expireIn: write.expireIn });
    const result = await withKvRetry(() => atomic.commit());
    if (!result.ok) throw new Error("request log commit refused");
  }

  /**
   * Logged requests matching `filter`, newest first unless `options.order` is `asc`, skipping
   * those past retention (see request_log_query.ts for what a page reads).
   */
  list(options: ListOptions, filter: RequestFilter = {}) {
    return queryRequestLog(this.#kv, { ...options, filter, retentionMs: this.#retentionMs });
  }

  /** Usage totals from the rollups (never a scan of the log). */
  usage(query: UsageQuery): Promise<UsageRow[]> {
    return readUsage(this.#kv, query);
  }

  /** The record of request `id`, or null (never written, or past retention). */
  async get(id: string): Promise<RequestLogEntry | null> {
    const record = recordOf((await this.#kv.get(kvKeys.requestLog(id))).value);
    return record && Date.parse(record.at) >= Date.now() - this.#retentionMs ? record : null;
  }

  /**
   * Completes the record of request `id` whose task ended: `complete` turns the pending record
   * into the final one (null: nothing to change). The record, its indexes and its usage are
   * written in one commit checked against the record, so it happens once. The record may not be
   * written yet (it is batched, perhaps by another instance): it is looked for up to 30 s.
   */
  async amend(
    id: string,
    complete: (record: RequestLogEntry) => RequestLogEntry | null,
  ): Promise<void> {
    for (let attempt = 0; attempt < 120; attempt++) {
      if (this.#pending.some((entry) => entry.id === id)) await this.flush();
      const found = await this.#kv.get(kvKeys.requestLog(id));
      const record = recordOf(found.value);
      if (!record) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        continue;
      }
      if (!record.task_pending) return;
      const next = complete(record);
      if (!next) return;
      const atomic = this.#kv.atomic().check(found);
      atomic.set(found.key, storedRecord(next), { expireIn: this.#retentionMs });
      for (const index of indexEntriesOf(next)) {
        atomic.set(index.key, index.value, { expireIn: this.#retentionMs });
      }
      addRollups(atomic, [next]);
      if ((await withKvRetry(() => atomic.commit()).catch(() => ({ ok: false }))).ok) return;
    }
    this.#onDrop();
    console.error(JSON.stringify({ msg: "request log record not completed", request_id: id }));
  }
}

/** `entries` cut into batches that fit one KV commit by count, mutations and bytes. */
function* batchesOf(entries: RequestLogEntry[]): Generator<RequestLogEntry[]> {
  let batch: RequestLogEntry[] = [];
  let bytes = 0;
  let mutations = 0;
  let buckets = new Set<string>();
  for (const entry of entries) {
    const size = approximateSize(entry);
    const bucket = rollupBucketOf(entry);
    const more = 1 + INDEXED_FIELDS.length + (buckets.has(bucket) ? 0 : SUMS_PER_BUCKET);
    if (
      batch.length && (batch.length >= MAX_BATCH_ENTRIES || bytes + size > MAX_BATCH_BYTES ||
        mutations + more > MAX_BATCH_MUTATIONS)
    ) {
      yield batch;
      batch = [];
      bytes = 0;
      mutations = 0;
      buckets = new Set();
    }
    batch.push(entry);
    bytes += size;
    mutations += 1 + INDEXED_FIELDS.length + (buckets.has(bucket) ? 0 : SUMS_PER_BUCKET);
    buckets.add(bucket);
  }
  if (batch.length) yield batch;
}

/**
 * An upper bound of `entry`'s stored size without serialising it: bounded entries are a fixed
 * set of short fields plus at most MAX_ATTEMPTS_KEPT attempts of bounded strings.
 */
function approximateSize(entry: RequestLogEntry): number {
  let size = (entry.receipt ? 2048 : 512) + (entry.ignored_fields?.join("").length ?? 0) +
    32 * (entry.ignored_fields?.length ?? 0) + entry.id.length + entry.route.length +
    (entry.model?.length ?? 0) +
    (entry.error_code?.length ?? 0) + entry.outcome.length;
  for (const attempt of entry.upstream_attempts) {
    size += 128 + (attempt.url?.length ?? 0) + (attempt.error?.length ?? 0);
  }
  return size;
}
