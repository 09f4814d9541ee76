/**
 * Failed redemptions, counted per redeemer (an account), so that codes cannot be guessed: after
 * `threshold` failures within `windowMs` the redeemer is refused with 429 until the oldest of
 * them leaves the window, even for a good code. In memory, per instance, bounded.
 */

import { GatewayError } from "../errors.ts";

export interface RedeemThrottleOptions {
  threshold: number;
  windowMs: number;
  /** Redeemers remembered at most; the least recently failing is forgotten first. */
  maxEntries: number;
}

export const DEFAULT_REDEEM_THROTTLE: RedeemThrottleOptions = {
  threshold: 10,
  windowMs: 60_000,
  maxEntries: 10_000,
};

export class RedeemThrottle {
  readonly options: RedeemThrottleOptions;
  /** Failure times within the window per redeemer, oldest first; Map order is recency. */
  #failures = new Map<string, number[]>();

  constructor(options: Partial<RedeemThrottleOptions> = {}) {
    this.options = { ...DEFAULT_REDEEM_THROTTLE, ...options };
  }

  #recent(redeemer: string, now: number): number[] {
    const times = (this.#failures.get(redeemer) ?? []).filter((at) =>
      at > now - this.options.windowMs
    );
    if (times.length) this.#failures.set(redeemer, times);
    else this.#failures.delete(redeemer);
    return times;
  }

  /** Throws 429 `too_many_redemption_attempts` while `redeemer` is over its failures. */
  check(redeemer: string, now = Date.now()): void {
    const times = this.#recent(redeemer, now);
    if (times.length < this.options.threshold) return;
    const seconds = Math.max(1, Math.ceil((times[0] + this.options.windowMs - now) / 1000));
    throw new GatewayError(
      "too_many_redemption_attempts",
      429,
      `Too many failed redemptions (${this.options.threshold} within ${
        this.options.windowMs / 1000
      } s); retry after ${seconds} s`,
      { headers: { "retry-after": String(seconds) }, retryable: false },
    );
  }

  /** Counts a failed redemption of `redeemer`. */
  failed(redeemer: string, now = Date.now()): void {
    const times = this.#recent(redeemer, now);
    this.#failures.delete(redeemer);
    if (this.#failures.size >= this.options.maxEntries) {
      this.#failures.delete(this.#failures.keys().next().value!);
    }
    times.push(now);
    this.#failures.set(redeemer, times.slice(-this.options.threshold));
  }
}
