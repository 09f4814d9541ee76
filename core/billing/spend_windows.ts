/**
 * The UTC windows that spend caps and tokens-per-minute count in: a day from 00:00, a week from
 * Monday 00:00, a month from the 1st, a minute. Pure functions of a time in milliseconds.
 */

/** The periods a key's spend can be capped per. */
export const SPEND_PERIODS = ["day", "week", "month"] as const;

export type SpendPeriod = (typeof SPEND_PERIODS)[number];

/** Spend caps per period, in units; an absent period has no cap. */
export type SpendLimits = Partial<Record<SpendPeriod, number>>;

/** One window of one period: its id (stable text, used in KV keys) and its bounds. */
export interface SpendWindow {
  period: SpendPeriod;
  /** e.g. `day:2026-11-24`, `week:2026-11-23` (its Monday), `month:2026-11`. */
  id: string;
  startMs: number;
  /** The first millisecond of the next window. */
  endMs: number;
}

const DAY_MS = 86_400_000;

function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The window of `period` that contains `nowMs`. */
export function spendWindowAt(period: SpendPeriod, nowMs: number): SpendWindow {
  const dayStart = Math.floor(nowMs / DAY_MS) * DAY_MS;
  if (period === "day") {
    return { period, id: `day:${isoDate(dayStart)}`, startMs: dayStart, endMs: dayStart + DAY_MS };
  }
  if (period === "week") {
    // getUTCDay: Sunday 0 … Saturday 6; days since Monday is (day + 6) % 7.
    const sinceMonday = (new Date(dayStart).getUTCDay() + 6) % 7;
    const startMs = dayStart - sinceMonday * DAY_MS;
    return { period, id: `week:${isoDate(startMs)}`, startMs, endMs: startMs + 7 * DAY_MS };
  }
  const date = new Date(nowMs);
  const startMs = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
  const endMs = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
  return { period, id: `month:${isoDate(startMs).slice(0, 7)}`, startMs, endMs };
}

/** The day, week and month windows that contain `nowMs`. */
export function spendWindowsAt(nowMs: number): SpendWindow[] {
  return SPEND_PERIODS.map((period) => spendWindowAt(period, nowMs));
}

/** The UTC minute that contains `nowMs`, as minutes since the epoch. */
export function minuteAt(nowMs: number): number {
  return Math.floor(nowMs / 60_000);
}

/** Whole seconds from `nowMs` until `endMs`, at least 1 (a `retry-after` value). */
export function secondsUntil(endMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((endMs - nowMs) / 1000));
}

/** How a period reads in a message: "daily" limit, spent "today". */
export const PERIOD_WORDS: Record<SpendPeriod, { adjective: string; current: string }> = {
  day: { adjective: "daily", current: "today" },
  week: { adjective: "weekly", current: "this week" },
  month: { adjective: "monthly", current: "this month" },
};
