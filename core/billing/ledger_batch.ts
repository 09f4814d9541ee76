/**
 * One attempt at a group commit of the ledger: the changes queued for one key, planned in order
 * against one read of its balance and written in one atomic commit that checks that balance.
 * The ledger makes a new batch for each attempt.
 */

import { timeOrderedId } from "../util/ids.ts";
import { kvKeys } from "../kv/kv_keys.ts";
import { isKvLocked } from "../kv/kv_retry.ts";
import type { BudgetLease, LedgerEntry, OpenHold } from "./ledger_records.ts";
import type { KvAtomic, KvBackend } from "../kv/kv_backend.ts";

/** What a plan adds to the ledger: the entry less what the batch fills in (id, balance, time). */
export type PlannedEntry = Pick<LedgerEntry, "type" | "amount" | "ref"> & Partial<LedgerEntry>;

/** Returned by a guarded plan whose guard said no: nothing at all is written. */
export const GUARD_REFUSED = Symbol("guard refused");

/** Returned by a plan that must see the balance fresh from KV before it decides. */
export const NEEDS_FRESH_BALANCE = Symbol("needs fresh balance");

export interface CounterChange {
  key: Deno.KvKey;
  delta: number;
  /** A counter that expires is always read and set (a KV sum would not keep its expiry). */
  expireIn?: number;
}

/** What a plan sees: the balance so far and the open holds, with this batch's changes applied. */
export interface BatchView {
  balance: number;
  /** Whether `balance` came from this process's cache rather than a fresh KV read. */
  readonly cached: boolean;
  readHold(ref: string): Promise<OpenHold | null>;
  writeHold(ref: string, hold: OpenHold | null): void;
  /** Counters (spend per window, tokens per minute) as of this batch, read from KV once. */
  readCounters(keys: Deno.KvKey[]): Promise<number[]>;
  /**
   * Adds to counters in this batch's commit: a counter this batch read is set, with its expiry;
   * one it did not read is summed, so moving a counter needs no read.
   */
  addToCounters(changes: CounterChange[]): Promise<void>;
  /** The key's budget leases, by instance, as of this batch (read from KV once). */
  readLeases(): Promise<Map<string, BudgetLease>>;
  /** Sets or (null) deletes `instance`'s lease in this batch's commit; read the leases first. */
  writeLease(instance: string, lease: BudgetLease | null): void;
  readonly atomic: KvAtomic;
}

export type Plan = (
  view: BatchView,
) => Promise<PlannedEntry | null | typeof NEEDS_FRESH_BALANCE | typeof GUARD_REFUSED>;

export interface QueuedChange {
  plan: Plan;
  /** Adds its own KV checks, so it commits alone (self-hosted denokv allows 10 checks). */
  alone: boolean;
  resolve(entry: LedgerEntry | null): void;
  reject(error: unknown): void;
}

/** What the ledger's process knows between batches; a batch reads it and, once committed, updates it. */
export interface LedgerCaches {
  /** The balance entry this process last wrote or read; a stale one fails the check and is re-read. */
  balances: Map<string, Deno.KvEntryMaybe<number>>;
  /**
   * Holds this process committed and has not closed. On an attempt that checks a cached balance,
   * such a hold is read from here: if anyone had closed it since, the balance would have moved
   * and the commit's check would fail, and the retry reads KV.
   */
  localHolds: Map<string, OpenHold>;
  /**
   * Each key's leases as of a balance versionstamp: lease records change only in commits that
   * set the balance, so they are current while that balance entry is.
   */
  leases: Map<string, { versionstamp: string; leases: Map<string, BudgetLease> }>;
}

/**
 * How planning ended: every change planned; a plan asked for the balance fresh from KV; a read
 * met SQLite's lock; or a guard said no and its change was answered null (nothing to write).
 */
export type PlanResult = "planned" | "needs_fresh_balance" | "locked" | "answered";

interface CounterState {
  key: Deno.KvKey;
  /** The value in KV, once read. */
  base?: number;
  /** What this batch adds. */
  delta: number;
  expireIn?: number;
}

/** A counter's number; counters are KvU64 so that they stay exact integers. */
export function counterValue(value: Deno.KvU64 | null): number {
  return value ? Number(value.value) : 0;
}

/** `delta` as a KvU64 sum operand: a negative one wraps around 2^64, which KV's sum undoes. */
function sumOperand(delta: number): bigint {
  return delta >= 0 ? BigInt(delta) : 2n ** 64n - BigInt(-delta);
}

export class LedgerBatch implements BatchView {
  balance: number;
  readonly cached: boolean;
  readonly atomic: KvAtomic;
  readonly #kv: KvBackend;
  readonly #keyId: string;
  /** The balance entry the commit checks. */
  readonly #current: Deno.KvEntryMaybe<number>;
  readonly #caches: LedgerCaches;
  readonly #holds = new Map<string, OpenHold | null>();
  // Counters move only in commits that also check and set the balance entry, so the check
  // orders them like the balance: a stale read here fails the commit.
  readonly #counters = new Map<string, CounterState>();
  #leases?: Map<string, BudgetLease>;
  readonly #leaseWrites = new Map<string, BudgetLease | null>();
  readonly #outcomes: Array<{ entry?: LedgerEntry | null; error?: unknown }> = [];

  constructor(
    kv: KvBackend,
    keyId: string,
    balance: { entry: Deno.KvEntryMaybe<number>; cached: boolean },
    caches: LedgerCaches,
  ) {
    this.#kv = kv;
    this.#keyId = keyId;
    this.#current = balance.entry;
    this.#caches = caches;
    this.balance = balance.entry.value ?? 0;
    this.cached = balance.cached;
    this.atomic = kv.atomic();
  }

  async readHold(ref: string): Promise<OpenHold | null> {
    if (this.#holds.has(ref)) return this.#holds.get(ref)!;
    const local = this.cached ? this.#caches.localHolds.get(ref) : undefined;
    if (local) return local;
    const stored = (await this.#kv.get<OpenHold>(kvKeys.openHold(ref))).value;
    if (!stored) this.#caches.localHolds.delete(ref);
    return stored;
  }

  writeHold(ref: string, hold: OpenHold | null): void {
    this.#holds.set(ref, hold);
  }

  #counter(key: Deno.KvKey): CounterState {
    const id = JSON.stringify(key);
    let state = this.#counters.get(id);
    if (!state) this.#counters.set(id, state = { key, delta: 0 });
    return state;
  }

  async readCounters(keys: Deno.KvKey[]): Promise<number[]> {
    const missing = keys.filter((key) => this.#counter(key).base === undefined);
    for (let i = 0; i < missing.length; i += 10) {
      const slice = missing.slice(i, i + 10);
      const found = await this.#kv.getMany<Deno.KvU64[]>(slice);
      found.forEach((entry, index) => this.#counter(slice[index]).base = counterValue(entry.value));
    }
    return keys.map((key) => this.#counter(key).base! + this.#counter(key).delta);
  }

  async addToCounters(changes: CounterChange[]): Promise<void> {
    await this.readCounters(
      changes.filter((change) => change.expireIn).map((change) => change.key),
    );
    for (const change of changes) {
      const state = this.#counter(change.key);
      state.delta += change.delta;
      state.expireIn ??= change.expireIn;
    }
  }

  async readLeases(): Promise<Map<string, BudgetLease>> {
    if (this.#leases) return this.#leases;
    const known = this.#caches.leases.get(this.#keyId);
    const current = this.#current;
    if (known && current.versionstamp && known.versionstamp === current.versionstamp) {
      return this.#leases = new Map(known.leases);
    }
    const leases = this.#leases = new Map();
    const prefix = kvKeys.budgetLeasesOf(this.#keyId);
    for await (const entry of this.#kv.list<BudgetLease>({ prefix })) {
      leases.set(String(entry.key[2]), entry.value);
    }
    return leases;
  }

  writeLease(instance: string, lease: BudgetLease | null): void {
    if (lease) this.#leases!.set(instance, lease);
    else this.#leases!.delete(instance);
    this.#leaseWrites.set(instance, lease);
  }

  /**
   * Plans `changes` in order, each seeing the ones before it; a plan's error is that change's
   * answer. Stops at a plan that needs a fresh balance, a read that met KV's lock, or a guard
   * that said no.
   */
  async plan(changes: QueuedChange[]): Promise<PlanResult> {
    for (const change of changes) {
      try {
        const planned = await change.plan(this);
        if (planned === NEEDS_FRESH_BALANCE) return "needs_fresh_balance";
        if (planned === GUARD_REFUSED) {
          // A guarded change commits alone: skip the commit and answer null.
          change.resolve(null);
          return "answered";
        }
        this.#outcomes.push({ entry: planned && this.#addEntry(planned) });
      } catch (error) {
        // A plan's read (a hold, the capped counters) met SQLite's lock: retry the batch.
        if (isKvLocked(error)) return "locked";
        this.#outcomes.push({ error });
      }
    }
    return "planned";
  }

  /** Moves the balance by `planned` and writes its entry (and its time index) in the commit. */
  #addEntry(planned: PlannedEntry): LedgerEntry {
    this.balance += planned.amount;
    const entry: LedgerEntry = {
      id: timeOrderedId("le"),
      key_id: this.#keyId.startsWith("key_") ? this.#keyId : null,
      wallet_id: this.#keyId,
      balance_after: this.balance,
      at: new Date().toISOString(),
      ...planned,
    };
    this.atomic.set(kvKeys.ledgerEntry(this.#keyId, entry.id), entry);
    this.atomic.set(kvKeys.ledgerByTime(entry.id), this.#keyId);
    return entry;
  }

  /**
   * Writes the planned batch in one commit that checks the balance entry it was planned on. On
   * success updates the caches, answers `changes` and returns true; returns false when the check
   * failed or KV was locked (plan a new batch on a fresh balance).
   */
  async commit(changes: QueuedChange[]): Promise<boolean> {
    this.#writeState();
    try {
      // kv-locked: caught below; the batch is read fresh and written again.
      const committed = await this.atomic.commit();
      if (!committed.ok) return false;
      this.#remember(committed.versionstamp);
      changes.forEach((change, index) => {
        const outcome = this.#outcomes[index];
        if ("error" in outcome) change.reject(outcome.error);
        else change.resolve(outcome.entry ?? null);
      });
      return true;
    } catch (error) {
      if (!isKvLocked(error)) throw error;
      return false;
    }
  }

  /** Adds the holds, leases, counters and the checked balance to the commit. */
  #writeState(): void {
    const { atomic } = this;
    for (const [ref, hold] of this.#holds) {
      if (hold) atomic.set(kvKeys.openHold(ref), hold);
      else atomic.delete(kvKeys.openHold(ref));
    }
    for (const [instance, lease] of this.#leaseWrites) {
      if (lease) atomic.set(kvKeys.budgetLease(this.#keyId, instance), lease);
      else atomic.delete(kvKeys.budgetLease(this.#keyId, instance));
    }
    for (const { key, base, delta, expireIn } of this.#counters.values()) {
      if (delta === 0) continue;
      if (base === undefined) atomic.sum(key, sumOperand(delta));
      else {
        const value = new Deno.KvU64(BigInt(Math.max(0, base + delta)));
        atomic.set(key, value, expireIn ? { expireIn } : {});
      }
    }
    atomic.check(this.#current).set(kvKeys.balance(this.#keyId), this.balance);
  }

  /** After the commit: the balance, holds and leases this process now knows. */
  #remember(versionstamp: string): void {
    const keyId = this.#keyId;
    const { balances, localHolds, leases } = this.#caches;
    balances.set(keyId, { key: [...kvKeys.balance(keyId)], value: this.balance, versionstamp });
    for (const [ref, hold] of this.#holds) {
      if (hold) localHolds.set(ref, hold);
      else localHolds.delete(ref);
    }
    const current = this.#current;
    const known = this.#leases ?? (current.versionstamp &&
      leases.get(keyId)?.versionstamp === current.versionstamp &&
      leases.get(keyId)!.leases);
    if (known) leases.set(keyId, { versionstamp, leases: known });
    else leases.delete(keyId);
  }
}
