/**
 * Whether the store answers, as this process last saw it: every store call that ends is a sign of
 * life, every call still unanswered at its deadline a sign of an outage. The outage rules read
 * it (a process with an unreachable store serves only from what it already leased, for at most
 * its grace; see docs/operations.md) and so does /readyz.
 */

import { GatewayError } from "../errors.ts";

export class StoreHealth {
  readonly #now: () => number;
  #lastAnswerAt: number;
  /** When a call first went unanswered past its deadline since the last answer; null if none. */
  #silentSince: number | null = null;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
    this.#lastAnswerAt = this.#now();
  }

  /** A store call ended (with a value or a failed check: either way the store answered). */
  answered(): void {
    this.#lastAnswerAt = this.#now();
    this.#silentSince = null;
  }

  /** A store call started at `startedAt` is still unanswered at its deadline. */
  missedDeadline(startedAt: number): void {
    // A call that started before the last answer says nothing the answer did not.
    if (startedAt < this.#lastAnswerAt) return;
    this.#silentSince ??= this.#now();
  }

  /** Whether the store answered since a call last missed its deadline. */
  get reachable(): boolean {
    return this.#silentSince === null;
  }

  /** Milliseconds since the store last answered anything. */
  sinceLastAnswer(): number {
    return this.#now() - this.#lastAnswerAt;
  }
}

/** The 503 of a store call that missed its deadline (every interface renders it). */
export function storeUnavailable(deadlineMs: number, what = "The gateway's store"): GatewayError {
  return new GatewayError(
    "store_unavailable",
    503,
    `${what} did not answer within ${deadlineMs} ms; retry shortly`,
    { retryable: true, headers: { "retry-after": "1" } },
  );
}
