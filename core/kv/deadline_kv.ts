/**
 * A store backend whose calls each have a deadline. A remote store that cannot be reached does
 * not fail a call: its client retries until the store is back. So each call here is raced
 * against `deadlineMs`; past it, the caller gets a 503 `store_unavailable` (every interface
 * renders it in its own envelope) and `health` learns that the store is silent.
 *
 * A read abandoned at its deadline changed nothing. A write abandoned at its deadline may still
 * land when the store returns: the client keeps it. So commits may instead be left to finish
 * (`commits: "wait"`), still watched for the deadline: the ledger's commits are, so that a
 * charge it queued is written once, when the store answers, and never again by a retry (its
 * callers that face a client race their own wait; see core/billing/budget_leases.ts).
 */

import type { KvAtomic, KvBackend, KvBackendListOptions, KvListing } from "./kv_backend.ts";
import { type StoreHealth, storeUnavailable } from "./store_health.ts";

export interface DeadlineOptions {
  deadlineMs: number;
  health: StoreHealth;
  /** `deadline` (default): commits are raced too; `wait`: commits are awaited to their end. */
  commits?: "deadline" | "wait";
}

/** `kv` with a deadline on each call. */
export function deadlineKv(kv: KvBackend, options: DeadlineOptions): KvBackend {
  const { deadlineMs, health } = options;
  const timed = <T>(work: () => Promise<T>, race = true): Promise<T> => {
    const startedAt = Date.now();
    let call: Promise<T>;
    try {
      call = work();
    } catch (error) {
      return Promise.reject(error);
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ended = call.then(
      (value) => {
        clearTimeout(timer);
        health.answered();
        return value;
      },
      (error) => {
        clearTimeout(timer);
        throw error;
      },
    );
    if (!race) {
      timer = setTimeout(() => health.missedDeadline(startedAt), deadlineMs);
      return ended;
    }
    return new Promise<T>((resolve, reject) => {
      timer = setTimeout(() => {
        health.missedDeadline(startedAt);
        reject(storeUnavailable(deadlineMs));
      }, deadlineMs);
      ended.then(resolve, reject);
    });
  };
  const raceCommits = options.commits !== "wait";

  const atomicOf = (inner: KvAtomic): KvAtomic => {
    const atomic: KvAtomic = {
      check(...checks) {
        inner.check(...checks);
        return atomic;
      },
      set(key, value, setOptions) {
        inner.set(key, value, setOptions);
        return atomic;
      },
      delete(key) {
        inner.delete(key);
        return atomic;
      },
      sum(key, n) {
        inner.sum(key, n);
        return atomic;
      },
      enqueue(value) {
        inner.enqueue(value);
        return atomic;
      },
      // kv-locked: a pass-through; its caller retries a locked KV as it would without it.
      commit: () => timed(() => inner.commit(), raceCommits),
    };
    return atomic;
  };

  const listingOf = <T>(inner: KvListing<T>): KvListing<T> => {
    const listing: KvListing<T> = {
      get cursor() {
        return inner.cursor;
      },
      next: () => timed(() => inner.next()),
      [Symbol.asyncIterator]: () => listing,
    };
    return listing;
  };

  return {
    get: (key) => timed(() => kv.get(key)),
    getMany: (keys) => timed(() => kv.getMany(keys)),
    // kv-locked: pass-throughs; their callers retry a locked KV as they would without them.
    set: (key, value, setOptions) => timed(() => kv.set(key, value, setOptions), raceCommits),
    // kv-locked: as above.
    delete: (key) => timed(() => kv.delete(key), raceCommits),
    list: <T>(selector: Deno.KvListSelector, listOptions?: KvBackendListOptions) =>
      listingOf(kv.list<T>(selector, listOptions)),
    atomic: () => atomicOf(kv.atomic()),
    listenQueue: (handler) => kv.listenQueue(handler),
    close: () => kv.close(),
  };
}
