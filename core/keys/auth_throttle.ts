/**
 * Failed authentication, slowed per client address. Every 401 (a wrong or missing API key on any
 * interface, a wrong admin or metrics token) counts against the address it came from; once an
 * address has failed `threshold` times within `windowMs` it is blocked for a while, and every
 * further failure while blocked is answered 429 with `retry-after` and doubles the block (up to
 * `maxBlockMs`).
 *
 * Valid credentials are never blocked: the credential is always checked, and only a failure is
 * turned into a 429. Client keys are 256-bit secrets, so guessing is not what this guards
 * against; it bounds what a misconfigured client or a flood of junk keys costs (each unknown key
 * is a KV read) and makes it visible, while a good client behind the same address (a NAT, an
 * office proxy) keeps working. A success does not clear an address's failures, so one good key
 * cannot launder a stream of bad ones. The table is in memory, per instance, and bounded.
 */

import { GatewayError } from "../errors.ts";

export interface AuthThrottleOptions {
  /** Failures within `windowMs` that start a block. */
  threshold: number;
  windowMs: number;
  /** The first block; each failure while blocked doubles it. */
  baseBlockMs: number;
  maxBlockMs: number;
  /** Addresses remembered at most; the least recently failing is forgotten first. */
  maxEntries: number;
}

export const DEFAULT_AUTH_THROTTLE: AuthThrottleOptions = {
  threshold: 10,
  windowMs: 60_000,
  baseBlockMs: 1_000,
  maxBlockMs: 15 * 60_000,
  maxEntries: 10_000,
};

interface Failures {
  /** Failure times within the window, oldest first (at most `threshold` kept). */
  times: number[];
  blockedUntil: number;
  /** The current block's length; doubles with each failure while blocked. */
  blockMs: number;
}

/** Counts failed authentications per client address and refuses further ones with 429. */
export class AuthThrottle {
  readonly options: AuthThrottleOptions;
  #table = new Map<string, Failures>();

  constructor(options: Partial<AuthThrottleOptions> = {}) {
    this.options = { ...DEFAULT_AUTH_THROTTLE, ...options };
  }

  /** Addresses currently remembered (for tests and metrics). */
  get size(): number {
    return this.#table.size;
  }

  /** Seconds until `address` may fail again without a 429; 0 when it is not blocked. */
  retryAfter(address: string, now = Date.now()): number {
    const entry = this.#table.get(throttleBucket(address));
    return entry && entry.blockedUntil > now ? Math.ceil((entry.blockedUntil - now) / 1000) : 0;
  }

  /**
   * Records a failed authentication of `address` and returns what to answer: `error` itself
   * while the address is under its threshold, or a 429 once it is blocked.
   */
  failed(address: string, error: GatewayError, now = Date.now()): GatewayError {
    const { threshold, windowMs, baseBlockMs, maxBlockMs, maxEntries } = this.options;
    const bucket = throttleBucket(address);
    let entry = this.#table.get(bucket);
    if (entry) this.#table.delete(bucket); // re-inserted below: the Map's order is recency
    else {
      if (this.#table.size >= maxEntries) this.#evict(now);
      entry = { times: [], blockedUntil: 0, blockMs: 0 };
    }
    this.#table.set(bucket, entry);
    const wasBlocked = entry.blockedUntil > now;
    entry.times = entry.times.filter((at) => at > now - windowMs);
    entry.times.push(now);
    if (entry.times.length > threshold) entry.times.shift();
    if (wasBlocked) {
      entry.blockMs = Math.min(maxBlockMs, entry.blockMs * 2);
      entry.blockedUntil = now + entry.blockMs;
    } else if (entry.times.length >= threshold) {
      // A block that ran out and is earned again at once starts from where the last one was.
      const lastEnded = entry.blockedUntil > 0 && now - entry.blockedUntil < windowMs;
      entry.blockMs = lastEnded ? Math.min(maxBlockMs, entry.blockMs * 2) : baseBlockMs;
      entry.blockedUntil = now + entry.blockMs;
    }
    if (!wasBlocked) return error;
    const seconds = Math.max(1, Math.ceil((entry.blockedUntil - now) / 1000));
    return new GatewayError(
      "auth_rate_limited",
      429,
      `Too many failed authentication attempts from this address (${threshold} or more within ` +
        `${
          windowMs / 1000
        } s); the last one failed too (${error.code}). Retry after ${seconds} s ` +
        `with a valid credential; valid credentials are never refused by this limit`,
      { headers: { "retry-after": String(seconds) }, retryable: false },
    );
  }

  /** Makes room: drops addresses whose window and block are over, else the least recent. */
  #evict(now: number): void {
    const { windowMs, maxEntries } = this.options;
    for (const [bucket, entry] of this.#table) {
      const last = entry.times[entry.times.length - 1] ?? 0;
      if (entry.blockedUntil <= now && last <= now - windowMs) this.#table.delete(bucket);
    }
    while (this.#table.size >= maxEntries) {
      this.#table.delete(this.#table.keys().next().value!);
    }
  }
}

/**
 * The bucket an address is counted in: an IPv4 address itself, an IPv6 address's /64 (one host
 * is routinely given a whole /64, so counting single v6 addresses would count nothing).
 */
export function throttleBucket(address: string): string {
  const plain = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (!plain.includes(":")) return plain;
  const mapped = plain.match(/^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i);
  if (mapped) return mapped[1];
  const halves = plain.toLowerCase().split("::");
  if (halves.length > 2) return plain;
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const groups = halves.length === 2
    ? [...head, ...Array(Math.max(0, 8 - head.length - tail.length)).fill("0"), ...tail]
    : head;
  return `${groups.slice(0, 4).map((group) => group.replace(/^0+(?=.)/, "")).join(":")}::/64`;
}
