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

/** Whether `error` is a store call given up on at its deadline. */
export function isStoreUnavailable(error: unknown): boolean {
  return error instanceof GatewayError && error.code === "store_unavailable";
}

/** The deadlines and the grace of the outage rules (docs/operations.md, "Store outages"). */
export interface StoreWaits {
  health: StoreHealth;
  deadlineMs: number;
  /** How long after the store last answered billable requests are still served from leases. */
  graceMs: number;
}

/** The 503 of a billable request an instance may not serve while its store is unreachable. */
export function outageRefusal(why: string): GatewayError {
  return new GatewayError(
    "store_unavailable",
    503,
    `The gateway's store is unreachable and ${why}; retry shortly`,
    { retryable: true, headers: { "retry-after": "1" } },
  );
}

/**
 * With the store unreachable for longer than the grace, the refusal of any billable request;
 * else null.
 */
export function graceRefusal(waits: StoreWaits): GatewayError | null {
  if (waits.health.reachable) return null;
  const silentMs = waits.health.sinceLastAnswer();
  if (silentMs <= waits.graceMs) return null;
  return outageRefusal(
    `it has not answered for ${Math.round(silentMs / 1000)} s, longer than this instance ` +
      `serves without it (${waits.graceMs} ms)`,
  );
}

/**
 * Waits for `work` (a store operation left to finish, such as a ledger commit) while the store
 * answers: a store busy with other calls gets more time, one that answered nothing for a whole
 * deadline is given up on with 503 `store_unavailable`. The work goes on; if it ends after it was
 * given up on, `onLate` gets its value (e.g. to release a hold that landed late).
 */
export function awaitStore<T>(
  work: Promise<T>,
  waits: Pick<StoreWaits, "health" | "deadlineMs">,
  onLate?: (value: T) => void,
): Promise<T> {
  const { health, deadlineMs } = waits;
  let givenUp = false;
  return new Promise<T>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const check = () => {
      const silent = health.sinceLastAnswer();
      if (silent < deadlineMs) {
        timer = setTimeout(check, deadlineMs - silent);
        return;
      }
      givenUp = true;
      reject(storeUnavailable(deadlineMs));
    };
    timer = setTimeout(check, deadlineMs);
    work.then(
      (value) => {
        clearTimeout(timer);
        if (givenUp) onLate?.(value);
        else resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
