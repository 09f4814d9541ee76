/**
 * What the Overview's "Today" shows, read for the operator: spend and requests since midnight UTC
 * by channel and by model (the usage rollups), error answers by channel and by model (the newest
 * of today's 4xx and 5xx records), and upstream latency percentiles from this process's
 * `gateway_upstream_latency_seconds` histogram — the one /metrics serves, so per instance and
 * since the process started, not per day.
 */

import type { Gateway } from "../../core/gateway.ts";
import type { RequestLogEntry } from "../../core/telemetry/request_log_entry.ts";
import type { UsageRow } from "../../core/telemetry/usage_rollups.ts";
import {
  addBuckets,
  type Bucket,
  histogramQuantile,
} from "../../core/telemetry/histogram_quantile.ts";
import { dayStart } from "./usage_summary.ts";

/**
 * How many of today's newest error records are counted, per class; a page of the log also stops
 * after reading SCAN_LIMIT records, so a busy day is counted from its newest records only.
 */
export const ERRORS_LOOKED_AT = 500;
const LATENCY_HISTOGRAM = "gateway_upstream_latency_seconds";

export interface Percentiles {
  /** Milliseconds; null when nothing was observed. */
  p50: number | null;
  p90: number | null;
  p99: number | null;
  observed: number;
}

export interface TodayRow {
  /** The channel id or model; null for requests that had none (refused before routing). */
  name: string | null;
  requests: number;
  cost: number;
  client_errors: number;
  server_errors: number;
}

/** p50, p90 and p99 of cumulative buckets in seconds, as whole milliseconds. */
export function percentilesOf(buckets: readonly Bucket[]): Percentiles {
  const ms = (q: number) => {
    const seconds = histogramQuantile(q, buckets);
    return seconds === null ? null : Math.round(seconds * 1000);
  };
  return { p50: ms(0.5), p90: ms(0.9), p99: ms(0.99), observed: buckets.at(-1)?.count ?? 0 };
}

/**
 * Today's rows by `field`: the rollups' requests and spend, with the error records counted in;
 * most requests first.
 */
export function todayRows(
  { usage, errors, field }: {
    usage: readonly UsageRow[];
    errors: readonly RequestLogEntry[];
    field: "channel_id" | "model";
  },
): TodayRow[] {
  const rows = new Map<string | null, TodayRow>();
  const rowOf = (name: string | null) => {
    let row = rows.get(name);
    if (!row) {
      rows.set(name, row = { name, requests: 0, cost: 0, client_errors: 0, server_errors: 0 });
    }
    return row;
  };
  for (const usageRow of usage) {
    const row = rowOf(usageRow[field] ?? null);
    row.requests += usageRow.requests;
    row.cost += usageRow.cost;
  }
  for (const entry of errors) {
    const row = rowOf(entry[field] ?? null);
    if (entry.status >= 500) row.server_errors++;
    else if (entry.status >= 400) row.client_errors++;
  }
  return [...rows.values()].sort((a, b) =>
    b.requests - a.requests || b.server_errors - a.server_errors || b.cost - a.cost
  );
}

export async function readToday(gateway: Gateway, now = Date.now()) {
  const since = dayStart(now);
  const usage = await gateway.requestLog.usage({
    from: since,
    to: Math.ceil(now / 3_600_000) * 3_600_000,
    interval: "day",
    groupBy: ["channel", "model"],
  });
  const errors: RequestLogEntry[] = [];
  let partial = false;
  for (const status of ["5xx", "4xx"]) {
    const page = await gateway.requestLog.list(
      { limit: ERRORS_LOOKED_AT, order: "desc", since },
      { status },
    );
    errors.push(...page.data);
    partial ||= page.cursor !== null;
  }
  const series = gateway.metrics.histogram(LATENCY_HISTOGRAM);
  const latencyByChannel = new Map(
    series.map(({ labels, buckets }) => [labels.channel ?? "", percentilesOf(buckets)]),
  );
  return {
    since: new Date(since).toISOString(),
    requests: usage.reduce((sum, row) => sum + row.requests, 0),
    cost: usage.reduce((sum, row) => sum + row.cost, 0),
    client_errors: errors.filter((entry) => entry.status < 500).length,
    server_errors: errors.filter((entry) => entry.status >= 500).length,
    /** The error counts stopped before the start of the day. */
    partial,
    channels: todayRows({ usage, errors, field: "channel_id" }),
    models: todayRows({ usage, errors, field: "model" }),
    latency: percentilesOf(addBuckets(series.map(({ buckets }) => buckets))),
    latencyByChannel,
    processStarted: new Date(performance.timeOrigin).toISOString(),
  };
}

export type Today = Awaited<ReturnType<typeof readToday>>;
