/**
 * Pure sums over usage rollup rows (`gateway.requestLog.usage`, per day): totals since a time,
 * a day-by-day series with the empty days filled in, and the top models or keys.
 */

import type { UsageRow } from "../../core/telemetry/usage_rollups.ts";

export const DAY_MS = 24 * 3_600_000;

export interface UsageTotals {
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cost: number;
}

export interface DayTotals extends UsageTotals {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
}

export interface Ranked extends UsageTotals {
  /** The model or key id; null for requests that had none (refused before routing). */
  name: string | null;
}

const ZERO: UsageTotals = { requests: 0, input_tokens: 0, output_tokens: 0, cost: 0 };

function add(into: UsageTotals, row: UsageTotals) {
  into.requests += row.requests;
  into.input_tokens += row.input_tokens;
  into.output_tokens += row.output_tokens;
  into.cost += row.cost;
}

/** The start (epoch ms) of the UTC day holding `ms`. */
export function dayStart(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** The sums of the rows that start at or after `since` (epoch ms). */
export function totalsSince(rows: readonly UsageRow[], since: number): UsageTotals {
  const totals = { ...ZERO };
  for (const row of rows) if (Date.parse(row.start) >= since) add(totals, row);
  return totals;
}

/** One entry per UTC day of the `days` days ending with the day of `now`, oldest first. */
export function dailySeries(
  rows: readonly UsageRow[],
  { now, days }: { now: number; days: number },
): DayTotals[] {
  const first = dayStart(now) - (days - 1) * DAY_MS;
  const series = Array.from({ length: days }, (_, index) => ({
    day: new Date(first + index * DAY_MS).toISOString().slice(0, 10),
    ...ZERO,
  }));
  for (const row of rows) {
    const index = Math.floor((Date.parse(row.start) - first) / DAY_MS);
    if (index >= 0 && index < days) add(series[index], row);
  }
  return series;
}

/** The `limit` models or keys with the most spend (then requests), summed over the rows. */
export function topBy(
  rows: readonly UsageRow[],
  { field, limit }: { field: "model" | "key_id"; limit: number },
): Ranked[] {
  const sums = new Map<string | null, Ranked>();
  for (const row of rows) {
    const name = row[field] ?? null;
    let ranked = sums.get(name);
    if (!ranked) sums.set(name, ranked = { name, ...ZERO });
    add(ranked, row);
  }
  return [...sums.values()]
    .sort((a, b) => b.cost - a.cost || b.requests - a.requests)
    .slice(0, limit);
}
