/**
 * What a video task costs (pure). Per-second models bill the output seconds plus the seconds of
 * the reference video and audio, at millisecond precision: each reference duration is rounded to
 * the nearest millisecond, the sum is priced, and the amount is rounded up to a whole unit.
 * Fixed-price models bill one price per task whatever the seconds.
 */

import { type PriceTier, tieredCeil } from "./price_tier.ts";

export type VideoPrice =
  | { per_second: number }
  | { per_task: number; failure_refund_percent?: number };

export interface VideoBill {
  /** Units held at submission and settled on success. */
  amount: number;
  /** Billed milliseconds (output + references) for per-second models; null for per task. */
  billedMs: number | null;
  /** The share of `amount` given back when the task fails, in percent. */
  refundPercent: number;
}

export function isPerTask(price: VideoPrice): price is { per_task: number } {
  return "per_task" in price;
}

/**
 * The bill of a task of `durationSeconds` output with references of `referenceSeconds`, at the
 * caller's price `tier` (default ×1), rounded up to a whole unit once.
 */
export function videoBill(
  price: VideoPrice,
  { durationSeconds, referenceSeconds }: {
    durationSeconds: number;
    referenceSeconds: readonly number[];
  },
  tier?: PriceTier,
): VideoBill {
  if ("per_task" in price) {
    return {
      amount: tieredCeil(BigInt(price.per_task), 1n, tier),
      billedMs: null,
      refundPercent: price.failure_refund_percent ?? 100,
    };
  }
  const billedMs = durationSeconds * 1000 +
    referenceSeconds.reduce((sum, seconds) => sum + Math.round(seconds * 1000), 0);
  return {
    amount: tieredCeil(BigInt(price.per_second) * BigInt(billedMs), 1000n, tier),
    billedMs,
    refundPercent: 100,
  };
}

/** What a failed task still costs: the part of `held` its refund policy keeps. */
export function failureCost(held: number, refundPercent: number): number {
  return held - Math.floor(held * refundPercent / 100);
}

/** Billed milliseconds as the seconds shown to callers, e.g. `7.038`. */
export function secondsText(billedMs: number): string {
  return String(billedMs / 1000);
}
