/**
 * Requests-per-minute limits per key: a sliding window over the current and previous minute,
 * counted in this process. With several instances each enforces the limit on its own traffic.
 */

import { GatewayError } from "../errors.ts";

interface Window {
  minute: number;
  current: number;
  previous: number;
}

/** Counts requests per key and refuses those over the key's rpm with 429 and `retry-after`. */
export class RateLimiter {
  #windows = new Map<string, Window>();

  /** Counts one request for `keyId`, or throws 429 when `rpm` is already reached. */
  take(keyId: string, rpm: number | null, now = Date.now()): void {
    if (rpm === null) return;
    const minute = Math.floor(now / 60_000);
    let window = this.#windows.get(keyId);
    if (!window || window.minute < minute - 1) {
      window = { minute, current: 0, previous: 0 };
      this.#windows.set(keyId, window);
    } else if (window.minute === minute - 1) {
      window.previous = window.current;
      window.current = 0;
      window.minute = minute;
    }
    const elapsed = (now % 60_000) / 60_000;
    const estimate = window.previous * (1 - elapsed) + window.current;
    if (estimate >= rpm) {
      const retryAfter = Math.max(1, Math.ceil(60 * (1 - elapsed)));
      throw new GatewayError(
        "rate_limited",
        429,
        `The key allows ${rpm} requests per minute; retry after ${retryAfter} s`,
        { headers: { "retry-after": String(retryAfter) } },
      );
    }
    window.current++;
  }
}
