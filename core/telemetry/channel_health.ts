/**
 * Channel health from the upstream attempts the request log already records, and from those of
 * the task worker (image and video task submissions) and channel tests: per channel and
 * 5-minute bucket, successes, failures, a latency histogram and the last error. Counted in memory
 * when the request log writes a batch (never per request), and written in that batch's commit as
 * one record per channel, bucket and instance (so instances never contend); readers add the
 * records of every instance up. Attempts the client cut short (`client_closed`) are not the channel's
 * doing and are not counted. Health is shown only: nothing here disables or enables a channel.
 */

import { kvKeys } from "../kv/kv_keys.ts";
import {
  addHistogram,
  latencyBin,
  type LatencyHistogram,
  medianLatency,
} from "./latency_histogram.ts";
import type { KvBackend } from "../kv/kv_backend.ts";
import type { AttemptRecord, RequestLogEntry } from "./request_log_entry.ts";

export const HEALTH_BUCKET_MS = 5 * 60_000;
/** How far back health looks: 12 buckets, one hour. */
export const HEALTH_WINDOW_MS = 60 * 60_000;
/** How long the last error of a channel is kept when no newer one comes. */
const LAST_ERROR_TTL_MS = 7 * 24 * 3600_000;

export interface ChannelError {
  at: string;
  error_class: string | null;
  status: number | null;
  /** Already redacted where it was recorded (core/upstream/error_reader.ts). */
  error: string | null;
}

/** One instance's counts of one channel in one bucket. */
export interface HealthCounts {
  ok: number;
  failed: number;
  latency: LatencyHistogram;
  last_error: ChannelError | null;
}

/** What the admin API shows of a channel's health. */
export interface ChannelHealthView {
  window_minutes: number;
  requests: number;
  success_rate: number | null;
  p50_latency_ms: number | null;
  last_error: string | null;
  last_error_class: string | null;
  last_error_at: string | null;
}

/** One KV write of health counts (a set with an expiry), committed by the request log. */
export interface HealthWrite {
  key: Deno.KvKey;
  value: HealthCounts | ChannelError;
  expireIn: number;
}

/** An attempt with the time it ended. */
type TimedAttempt = { attempt: AttemptRecord; atMs: number };

function emptyCounts(): HealthCounts {
  return { ok: 0, failed: 0, latency: {}, last_error: null };
}

function newer(a: ChannelError | null, b: ChannelError | null): ChannelError | null {
  if (!a) return b;
  if (!b) return a;
  return Date.parse(b.at) > Date.parse(a.at) ? b : a;
}

/** Counts attempts and reads health; one per gateway process. */
export class ChannelHealth {
  #kv: KvBackend;
  #instanceId: string;
  /** Counts of this instance by `channel\tbucket`, for buckets still in the window. */
  #counts = new Map<string, HealthCounts>();
  /** Attempts noted outside request records (task work, channel tests), counted at the next write. */
  #noted: TimedAttempt[] = [];

  constructor(kv: KvBackend, options: { instanceId: string }) {
    this.#kv = kv;
    this.#instanceId = options.instanceId;
  }

  /** Counts an attempt that has no request log entry (task work, a channel test) at the next write. */
  note(attempt: AttemptRecord): void {
    this.#noted.push({ attempt, atMs: Date.now() });
  }

  /**
   * Counts the attempts of `entries` and of noted attempts, and returns the KV writes of what
   * changed, for the request log to add to its batch's commit.
   */
  writesFor(entries: readonly RequestLogEntry[]): HealthWrite[] {
    const attempts: TimedAttempt[] = this.#noted.splice(0);
    for (const entry of entries) {
      const atMs = Date.parse(entry.at);
      for (const attempt of entry.upstream_attempts) attempts.push({ attempt, atMs });
    }
    const changed = new Set<string>();
    const lastErrors = new Map<string, ChannelError>();
    for (const { attempt, atMs } of attempts) {
      if (attempt.error_class === "client_closed" || attempt.outcome === "skipped") continue;
      const bucket = Math.floor(atMs / HEALTH_BUCKET_MS) * HEALTH_BUCKET_MS;
      const id = `${attempt.channel_id}\t${bucket}`;
      const counts = this.#counts.get(id) ?? emptyCounts();
      this.#counts.set(id, counts);
      changed.add(id);
      if (attempt.outcome === "ok") counts.ok++;
      else counts.failed++;
      const bin = latencyBin(attempt.latency_ms ?? 0);
      counts.latency[bin] = (counts.latency[bin] ?? 0) + 1;
      if (attempt.outcome === "failed") {
        const error: ChannelError = {
          at: new Date(atMs).toISOString(),
          error_class: attempt.error_class ?? null,
          status: attempt.status ?? null,
          error: attempt.error ?? null,
        };
        counts.last_error = newer(counts.last_error, error);
        lastErrors.set(
          attempt.channel_id,
          newer(lastErrors.get(attempt.channel_id) ?? null, error)!,
        );
      }
    }
    this.#forgetOld();
    const writes: HealthWrite[] = [];
    for (const id of changed) {
      const counts = this.#counts.get(id);
      if (!counts) continue;
      const [channelId, bucket] = id.split("\t");
      const expireIn = Number(bucket) + HEALTH_BUCKET_MS + HEALTH_WINDOW_MS - Date.now();
      writes.push({
        key: kvKeys.channelHealth(channelId, Number(bucket), this.#instanceId),
        value: structuredClone(counts),
        expireIn: Math.max(expireIn, 1000),
      });
    }
    for (const [channelId, error] of lastErrors) {
      writes.push({
        key: kvKeys.channelLastError(channelId),
        value: error,
        expireIn: LAST_ERROR_TTL_MS,
      });
    }
    return writes;
  }

  /** Drops counts of buckets that left the window. */
  #forgetOld(): void {
    const oldest = Date.now() - HEALTH_WINDOW_MS - HEALTH_BUCKET_MS;
    for (const id of this.#counts.keys()) {
      if (Number(id.split("\t")[1]) < oldest) this.#counts.delete(id);
    }
  }

  /** The health of `channelId` over the last HEALTH_WINDOW_MS, every instance's counts added. */
  async read(channelId: string): Promise<ChannelHealthView> {
    const since = Math.floor((Date.now() - HEALTH_WINDOW_MS) / HEALTH_BUCKET_MS) *
      HEALTH_BUCKET_MS;
    const total = emptyCounts();
    const [records, lastError] = await Promise.all([
      Array.fromAsync(this.#kv.list<HealthCounts>({
        prefix: kvKeys.channelHealthOf(channelId),
        start: [...kvKeys.channelHealthOf(channelId), since],
      })),
      this.#kv.get<ChannelError>(kvKeys.channelLastError(channelId)),
    ]);
    for (const { value } of records) {
      total.ok += value.ok;
      total.failed += value.failed;
      addHistogram(total.latency, value.latency);
      total.last_error = newer(total.last_error, value.last_error);
    }
    const last = newer(total.last_error, lastError.value);
    const requests = total.ok + total.failed;
    return {
      window_minutes: HEALTH_WINDOW_MS / 60_000,
      requests,
      success_rate: requests ? Math.round((total.ok / requests) * 10_000) / 10_000 : null,
      p50_latency_ms: medianLatency(total.latency),
      last_error: last?.error ?? null,
      last_error_class: last?.error_class ?? null,
      last_error_at: last?.at ?? null,
    };
  }
}
