/**
 * The one ledger. Each balance change and its entry are written in one atomic commit, and each
 * is possible once only: a hold opens a record keyed by its ref; settle and release consume that
 * record under a check, so a second settle or release of the same ref does nothing.
 * Invariant at every moment, per key: sum of entry amounts = balance.
 */

import { GatewayError } from "./errors.ts";
import { timeOrderedId } from "./ids.ts";
import { kvKeys } from "./kv_keys.ts";

export type LedgerEntryType = "credit" | "hold" | "settle" | "release";

export interface LedgerEntry {
  id: string;
  key_id: string;
  type: LedgerEntryType;
  /** Signed units: + adds to the balance, − takes from it. */
  amount: number;
  balance_after: number;
  /** The request, task or credit this entry belongs to. */
  ref: string;
  at: string;
  note?: string;
  /** On settle: the full cost of the request. */
  cost?: number;
  /** On settle: the part of `cost` the key's credit floor left uncollected. */
  shortfall?: number;
}

/** An open hold, removed by exactly one settle or release. */
export interface OpenHold {
  key_id: string;
  amount: number;
  at: string;
}

/** What a key may spend: down to −credit_limit, or without limit. */
export interface SpendingLimit {
  unlimited: boolean;
  credit_limit: number;
}

type PlannedEntry = Pick<LedgerEntry, "type" | "amount" | "ref"> & Partial<LedgerEntry>;

/** Returned by a plan that must see the balance fresh from KV before it decides. */
const NEEDS_FRESH_BALANCE = Symbol("needs fresh balance");

const MAX_ATTEMPTS = 50;

function isRetryableCommitError(error: unknown): boolean {
  return error instanceof TypeError && /database is locked/i.test(error.message);
}

/** Money movements on keys, exact under concurrency and across processes. */
export class Ledger {
  #kv: Deno.Kv;
  /** Per-key promise chains: one process never races itself on a balance. */
  #queues = new Map<string, Promise<unknown>>();
  /** The balance entry this process last wrote or read; a stale one fails the check and is re-read. */
  #balances = new Map<string, Deno.KvEntryMaybe<number>>();

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  #serialised<T>(keyId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#queues.get(keyId) ?? Promise.resolve();
    const next = previous.then(work, work);
    const tail = next.catch(() => {});
    this.#queues.set(keyId, tail);
    tail.then(() => {
      if (this.#queues.get(keyId) === tail) this.#queues.delete(keyId);
    });
    return next;
  }

  async #readBalance(
    keyId: string,
    fresh: boolean,
  ): Promise<{ entry: Deno.KvEntryMaybe<number>; cached: boolean }> {
    const cached = this.#balances.get(keyId);
    if (cached && !fresh) return { entry: cached, cached: true };
    const entry = await this.#kv.get<number>(kvKeys.balance(keyId));
    this.#balances.set(keyId, entry);
    return { entry, cached: false };
  }

  /**
   * Plans a change against the current balance and commits it with its entry, retrying on a
   * lost race. `plan` adds its own checks to `atomic`, or returns null to change nothing.
   */
  #change(
    keyId: string,
    plan: (
      balance: number,
      atomic: Deno.AtomicOperation,
      cached: boolean,
    ) => Promise<PlannedEntry | null | typeof NEEDS_FRESH_BALANCE>,
  ): Promise<LedgerEntry | null> {
    return this.#serialised(keyId, async () => {
      let fresh = false;
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const { entry: current, cached } = await this.#readBalance(keyId, fresh);
        const balance = current.value ?? 0;
        const atomic = this.#kv.atomic();
        const planned = await plan(balance, atomic, cached);
        if (planned === NEEDS_FRESH_BALANCE) {
          fresh = true;
          continue;
        }
        if (!planned) return null;
        const after = balance + planned.amount;
        const entry: LedgerEntry = {
          id: timeOrderedId("le"),
          key_id: keyId,
          balance_after: after,
          at: new Date().toISOString(),
          ...planned,
        };
        atomic.check(current)
          .set(kvKeys.balance(keyId), after)
          .set(kvKeys.ledgerEntry(keyId, entry.id), entry);
        try {
          const committed = await atomic.commit();
          if (committed.ok) {
            this.#balances.set(keyId, {
              key: [...kvKeys.balance(keyId)],
              value: after,
              versionstamp: committed.versionstamp,
            });
            return entry;
          }
        } catch (error) {
          if (!isRetryableCommitError(error)) throw error;
        }
        fresh = true;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * (attempt + 1)));
      }
      throw new GatewayError("ledger_busy", 503, "The ledger is busy; retry the request", {
        retryable: true,
      });
    });
  }

  /** The current balance of a key, in units. */
  async balance(keyId: string): Promise<number> {
    return (await this.#kv.get<number>(kvKeys.balance(keyId))).value ?? 0;
  }

  /** Balances of many keys (KV reads at most 10 at once). */
  async balances(keyIds: string[]): Promise<Map<string, number>> {
    const result = new Map<string, number>();
    for (let i = 0; i < keyIds.length; i += 10) {
      const slice = keyIds.slice(i, i + 10);
      const entries = await this.#kv.getMany<number[]>(slice.map((id) => kvKeys.balance(id)));
      entries.forEach((entry, index) => result.set(slice[index], entry.value ?? 0));
    }
    return result;
  }

  /** Adds (or, when negative, takes) money. A `ref` makes the credit happen once only. */
  async credit(
    keyId: string,
    amount: number,
    options: { note?: string; ref?: string } = {},
  ): Promise<LedgerEntry> {
    const ref = options.ref ?? timeOrderedId("cr");
    const entry = await this.#change(keyId, async (_balance, atomic) => {
      if (options.ref) {
        const seen = await this.#kv.get(kvKeys.ledgerRef(`credit:${ref}`));
        if (seen.versionstamp) return null;
        atomic.check(seen).set(kvKeys.ledgerRef(`credit:${ref}`), keyId);
      }
      return { type: "credit", amount, ref, note: options.note };
    });
    if (!entry) {
      throw new GatewayError(
        "duplicate_credit",
        409,
        `A credit with ref '${ref}' was already made`,
      );
    }
    return entry;
  }

  /**
   * Holds `amount` for request or task `ref`. Refuses with 402 `insufficient_balance` when the
   * balance would drop below the key's floor.
   */
  async hold(keyId: string, limit: SpendingLimit, ref: string, amount: number) {
    const entry = await this.#change(keyId, async (balance, atomic, cached) => {
      if (!limit.unlimited && balance - amount < -limit.credit_limit) {
        // Another instance may have added credit since this one last looked.
        if (cached) return NEEDS_FRESH_BALANCE;
        throw new GatewayError(
          "insufficient_balance",
          402,
          `Cannot hold funds for key '${keyId}': ${
            balance + limit.credit_limit
          } units are available, the request needs up to ${amount}; add credit or lower max_tokens`,
          { retryable: false },
        );
      }
      const existing = await this.#kv.get(kvKeys.openHold(ref));
      if (existing.versionstamp) return null;
      const hold: OpenHold = { key_id: keyId, amount, at: new Date().toISOString() };
      atomic.check(existing).set(kvKeys.openHold(ref), hold);
      return { type: "hold", amount: -amount, ref };
    });
    if (!entry) {
      throw new GatewayError("duplicate_hold", 409, `Funds for '${ref}' are already held`);
    }
    return entry;
  }

  /**
   * Settles hold `ref` to the real `cost`: the entry gives back held − cost. With a credit floor,
   * what is collected never takes the balance below it; the rest is recorded as `shortfall`.
   * Returns null when the hold was already settled or released.
   */
  settle(keyId: string, limit: SpendingLimit, ref: string, cost: number) {
    return this.#close(keyId, ref, (held, balance) => {
      const floor = limit.unlimited ? -Infinity : -limit.credit_limit;
      const collected = Math.min(cost, Math.max(held, held + balance - floor));
      return { type: "settle", amount: held - collected, ref, cost, shortfall: cost - collected };
    });
  }

  /** Gives hold `ref` back in full. Returns null when it was already settled or released. */
  release(keyId: string, ref: string, note?: string) {
    return this.#close(keyId, ref, (held) => ({ type: "release", amount: held, ref, note }));
  }

  #close(
    keyId: string,
    ref: string,
    compute: (held: number, balance: number) => PlannedEntry,
  ): Promise<LedgerEntry | null> {
    return this.#change(keyId, async (balance, atomic) => {
      const hold = await this.#kv.get<OpenHold>(kvKeys.openHold(ref));
      if (!hold.value) return null;
      atomic.check(hold).delete(kvKeys.openHold(ref));
      return compute(hold.value.amount, balance);
    });
  }

  /** Releases holds older than `maxAgeMs`: work of a killed process that was never settled. */
  async releaseStaleHolds(maxAgeMs: number): Promise<number> {
    let released = 0;
    const cutoff = Date.now() - maxAgeMs;
    for await (const entry of this.#kv.list<OpenHold>({ prefix: kvKeys.openHolds() })) {
      if (Date.parse(entry.value.at) > cutoff) continue;
      const ref = String(entry.key[1]);
      if (await this.release(entry.value.key_id, ref, "stale hold released")) released++;
    }
    return released;
  }

  /** Ledger entries of one key, or of all keys (ordered by key, then time). */
  async list(keyId: string | undefined, cursor: string | undefined, limit: number) {
    const prefix = keyId ? kvKeys.ledgerOfKey(keyId) : kvKeys.ledger();
    const iterator = this.#kv.list<LedgerEntry>({ prefix }, { cursor, limit });
    const data: LedgerEntry[] = [];
    for await (const entry of iterator) data.push(entry.value);
    return { data, cursor: data.length === limit ? iterator.cursor : null };
  }
}
