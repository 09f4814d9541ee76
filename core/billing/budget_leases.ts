/**
 * This process's budget leases and aggregated charges: the money path of a request on a key
 * without spend caps, with no KV commit awaited before the upstream call.
 *
 * A limited key's requests are admitted in memory against a lease: units of the key's balance
 * reserved for this process in one commit (Ledger.takeLease). A request reserves its upper
 * bound from the lease; when it ends, its cost is added to the key's pending sum and the rest
 * goes back to the lease. Every flush interval the pending sum of each key is written as one
 * charge entry, which also shrinks the lease by as much. A lease running short is renewed (the
 * one commit a request may wait for); an idle one, and every one at drain, is returned. Keys
 * without a limit need no lease; their costs are aggregated the same way.
 *
 * What a kill -9 loses: the costs not yet written, at most those added since the last flush
 * began; the dead process's lease is returned by the orphaned-holds sweep, once.
 *
 * With a remote store that stops answering (`outage`, docs/operations.md "Store outages"), a
 * request is admitted only from the units its wallet's lease already holds here, and only within
 * the grace since the store last answered; its cost waits in memory and is written once the store
 * is back (the ledger's commits are left to finish, never repeated). A lease that runs short is
 * not renewed: the request is refused with 503 `store_unavailable`. So what a crash in an outage
 * can lose is at most the unwritten costs of one lease per wallet and process (plus, for keys
 * without a limit, what they spent within the grace).
 */

import {
  type BillableKey,
  type LedgerEntry,
  type SpendingLimit,
  walletOf,
} from "./ledger_records.ts";
import type { ReceiptEntry } from "./receipt.ts";
import {
  awaitStore,
  graceRefusal,
  isStoreUnavailable,
  outageRefusal,
  type StoreWaits,
} from "../kv/store_health.ts";

/**
 * What budget leases ask of the ledger (Ledger's methods of the same names, which say what they
 * do). Declared here so that this file does not import the ledger that owns it.
 */
export interface LeaseLedger {
  takeLease(
    keyId: string,
    options: { limit: SpendingLimit; need: number; want: number; free?: number; remedy?: string },
  ): Promise<LedgerEntry>;
  extendLease(
    keyId: string,
    options: { limit: SpendingLimit; want: number },
  ): Promise<LedgerEntry | null>;
  chargeAggregated(
    keyId: string,
    options: {
      keyId?: string;
      cost: number;
      requests: number;
      through: string;
      leaseRef?: string;
      shortfall?: number;
    },
  ): Promise<{ entry: LedgerEntry; leaseKept: boolean }>;
  returnLease(
    keyId: string,
    options: { ref: string; note: string; instance?: string },
  ): Promise<LedgerEntry | null>;
}

/** How often pending costs are written (ms). */
export const DEFAULT_FLUSH_MS = 100;
/** A lease with no request for this long is returned. */
const IDLE_MS = 2_000;
/** A lease is renewed for this many requests of the size that needed it. */
const REQUESTS_PER_LEASE = 16;
/** Flush attempts at drain before the costs still unwritten are given up (the KV is down). */
const DRAIN_ATTEMPTS = 3;

/** Units a request took from its key's lease, and which lease (see KeyBudget.generation). */
export interface Reservation {
  amount: number;
  generation: number;
}

/** A request's share of an aggregated charge, and what of its cost the floor left uncollected. */
export interface ChargedShare extends ReceiptEntry {
  shortfall: number;
}

interface Waiter {
  /** The key whose request it is (each key's costs are an entry of their own). */
  keyId: string;
  /** What the request is charged: its cost less its shortfall. */
  cost: number;
  shortfall: number;
  resolve(share: ChargedShare): void;
  reject(error: unknown): void;
}

/**
 * One wallet's lease and pending costs in this process (the wallet's keys share its lease; the
 * key ids below name the wallet, as they did when every key had a wallet of its own).
 */
interface KeyBudget {
  keyId: string;
  /** Whether the key's requests spend from a lease (it has a credit floor). */
  leased: boolean;
  /** The lease's ref once taken; null when this process has none. */
  ref: string | null;
  /**
   * Counts the leases this budget has had. A reservation gives its units back only to the
   * lease it was taken from: one that was swept meanwhile has no units to give them to.
   */
  generation: number;
  /** Units of the lease not reserved by a request in flight nor spent. */
  free: number;
  inFlight: number;
  pendingCost: number;
  /** What the pending requests' costs came to beyond `pendingCost` (the floor stopped them). */
  pendingShortfall: number;
  waiters: Waiter[];
  /** Flushes of this key under way. */
  flushing: number;
  /** Requests, and their costs, in the flushes under way (not yet written). */
  writing: number;
  writingCost: number;
  renewing: Promise<void> | null;
  /** The `need` of the renewal under way. */
  renewingNeed: number;
  lastUsed: number;
}

export class BudgetLeases {
  readonly #ledger: LeaseLedger;
  readonly #flushMs: number;
  readonly #budgets = new Map<string, KeyBudget>();
  readonly #outage?: StoreWaits;
  #timer?: ReturnType<typeof setTimeout>;

  constructor(ledger: LeaseLedger, options: { flushMs?: number; outage?: StoreWaits } = {}) {
    this.#ledger = ledger;
    this.#flushMs = options.flushMs ?? DEFAULT_FLUSH_MS;
    this.#outage = options.outage;
  }

  /**
   * With the store unreachable: refuses (503) a request this process may not serve, past the
   * grace or beyond its wallet's lease. Returns whether the store is unreachable.
   */
  #admitInOutage(budget: KeyBudget, amount: number): boolean {
    const outage = this.#outage;
    if (!outage || outage.health.reachable) return false;
    const refusal = graceRefusal(outage);
    if (refusal) throw refusal;
    if (budget.leased && budget.free < amount) {
      throw outageRefusal(
        "this instance serves only from the budget it leased before, and what is left of it " +
          `(${Math.max(0, budget.free)} units) does not cover the request (${amount})`,
      );
    }
    return true;
  }

  #storeAnswers(): boolean {
    return this.#outage?.health.reachable ?? true;
  }

  /** `work`, given up on (503) when the store answers nothing for a whole deadline. */
  #whileStoreAnswers<T>(work: Promise<T>): Promise<T> {
    return this.#outage ? awaitStore(work, this.#outage) : work;
  }

  #budget(key: BillableKey): KeyBudget {
    const walletId = walletOf(key);
    let budget = this.#budgets.get(walletId);
    if (!budget) {
      budget = {
        keyId: walletId,
        leased: !key.unlimited,
        ref: null,
        generation: 0,
        free: 0,
        inFlight: 0,
        pendingCost: 0,
        pendingShortfall: 0,
        waiters: [],
        flushing: 0,
        writing: 0,
        writingCost: 0,
        renewing: null,
        renewingNeed: 0,
        lastUsed: Date.now(),
      };
      this.#budgets.set(walletId, budget);
    }
    // A key changed from unlimited to limited (or back) leases from its next request on.
    budget.leased = !key.unlimited;
    return budget;
  }

  /**
   * Reserves `amount` units for one request of `key`: from the lease, renewing it when it runs
   * short (402 `insufficient_balance` when the key cannot cover the request). Resolves with
   * the reservation, for `charge` or `cancel`.
   */
  async reserve(
    key: BillableKey,
    options: { amount: number; remedy?: string },
  ): Promise<Reservation> {
    const { amount } = options;
    const budget = this.#budget(key);
    budget.lastUsed = Date.now();
    this.#admitInOutage(budget, amount);
    if (budget.leased) {
      while (budget.free < amount) {
        const need = amount - budget.free;
        if (!budget.renewing) {
          budget.renewingNeed = need;
          budget.renewing = this.#renew(budget, { key, need, remedy: options.remedy })
            .finally(() => budget.renewing = null);
        }
        const failedNeed = budget.renewingNeed;
        try {
          // The renewal goes on if this request stops waiting: its units are the lease's.
          await this.#whileStoreAnswers(budget.renewing);
        } catch (error) {
          if (isStoreUnavailable(error)) throw error;
          // A renewal that could not cover less than this request needs is this one's answer.
          if (amount - budget.free >= failedNeed) throw error;
        }
      }
      budget.free -= amount;
    }
    budget.inFlight++;
    this.#schedule();
    return { amount, generation: budget.generation };
  }

  async #renew(
    budget: KeyBudget,
    options: { key: BillableKey; need: number; remedy?: string },
  ): Promise<void> {
    const { key, need } = options;
    const entry = await this.#ledger.takeLease(walletOf(key), {
      limit: key,
      need,
      want: Math.max(need, (need + budget.free) * REQUESTS_PER_LEASE),
      free: budget.free,
      remedy: options.remedy,
    });
    this.#extended(budget, entry);
  }

  /** Forgets `budget`'s lease and its units: the lease is gone from KV. */
  #lost(budget: KeyBudget): void {
    budget.free = 0;
    budget.ref = null;
    budget.generation++;
  }

  /** Gives `reservation` less `spent` back to its lease, if that lease is still this budget's. */
  #giveBack(budget: KeyBudget, reservation: Reservation | null, spent: number): void {
    if (reservation) budget.inFlight = Math.max(0, budget.inFlight - 1);
    if (budget.leased && reservation?.generation === budget.generation) {
      budget.free += reservation.amount - spent;
    }
  }

  /**
   * Ends a request that cost `cost` (after `reservation`, null if it reserved nothing): the cost
   * is charged in the key's next aggregated entry, the rest goes back to the lease. A cost
   * beyond the reservation (the upstream counted past the request's bound) is taken from the
   * lease's free units, then from what the key has left down to its floor; what cannot be taken
   * is the request's shortfall. Resolves, once that entry is written, with its id, the request's
   * share of it and its shortfall.
   */
  async charge(
    key: BillableKey,
    options: { reservation: Reservation | null; cost: number },
  ): Promise<ChargedShare> {
    const budget = this.#budget(key);
    const { reservation, cost } = options;
    const excess = budget.leased ? Math.max(0, cost - (reservation?.amount ?? 0)) : 0;
    // A charge within its reservation awaits nothing: its waiter is queued at once.
    const shortfall = excess > 0 ? await this.#cover(budget, key, excess) : 0;
    this.#giveBack(budget, reservation, cost - excess);
    budget.pendingCost += cost - shortfall;
    budget.pendingShortfall += shortfall;
    budget.lastUsed = Date.now();
    const written = new Promise<ChargedShare>((resolve, reject) => {
      budget.waiters.push({ keyId: key.id, cost: cost - shortfall, shortfall, resolve, reject });
    });
    this.#schedule();
    return written;
  }

  /**
   * Takes `excess` units from the lease's free units, extending the lease from the key's
   * balance when they fall short. Returns the units that could not be taken: the key is at its
   * floor (or its ledger could not be written, and nothing more is spent without a commit).
   */
  async #cover(budget: KeyBudget, key: BillableKey, excess: number): Promise<number> {
    let missing = excess - this.#take(budget, excess);
    if (missing === 0) return 0;
    try {
      const extending = this.#ledger.extendLease(walletOf(key), { limit: key, want: missing })
        .then((entry) => {
          if (entry) this.#extended(budget, entry);
        });
      // An extension that lands after this charge stopped waiting still adds to the lease.
      await this.#whileStoreAnswers(extending);
    } catch {
      // Not extended: what the lease cannot cover is the shortfall.
    }
    missing -= this.#take(budget, missing);
    return missing;
  }

  /** Takes up to `units` of the lease's free units; returns how many. */
  #take(budget: KeyBudget, units: number): number {
    const taken = Math.min(units, Math.max(0, budget.free));
    budget.free -= taken;
    return taken;
  }

  /** Adds a lease entry's units to `budget` (a lease with another ref replaces the one it had). */
  #extended(budget: KeyBudget, entry: LedgerEntry): void {
    // Another ref: the lease is new, or this process's was swept meanwhile (its units are gone).
    if (budget.ref !== entry.ref) this.#lost(budget);
    budget.ref = entry.ref;
    budget.free += entry.reserved ?? 0;
  }

  /** Ends a request that cost nothing: its reservation goes back to the lease. */
  cancel(key: BillableKey, reservation: Reservation): void {
    const budget = this.#budget(key);
    this.#giveBack(budget, reservation, 0);
    budget.lastUsed = Date.now();
    this.#schedule();
  }

  #schedule(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#tick();
    }, this.#flushMs);
  }

  #tick(): void {
    const now = Date.now();
    for (const budget of this.#budgets.values()) {
      // With the store unreachable, one flush at a time (the next could not be written either),
      // and an idle lease is kept (its return could not be written).
      const answers = this.#storeAnswers();
      if (budget.waiters.length) {
        if (budget.flushing === 0 || answers) this.#flush(budget).catch(() => {});
      } else if (this.#idle(budget) && now - budget.lastUsed >= IDLE_MS && answers) {
        this.#returnLease(budget).catch(() => {});
      }
    }
    if (this.#budgets.size) this.#schedule();
  }

  #idle(budget: KeyBudget): boolean {
    return budget.inFlight === 0 && !budget.renewing && budget.flushing === 0 &&
      budget.waiters.length === 0;
  }

  /**
   * Writes `budget`'s pending costs, one entry per key (in one commit when the ledger batches
   * them); on failure a key's costs stay pending for the next flush.
   */
  async #flush(budget: KeyBudget): Promise<void> {
    const waiters = budget.waiters;
    const writingCost = budget.pendingCost;
    budget.waiters = [];
    budget.pendingCost = 0;
    budget.pendingShortfall = 0;
    budget.writing += waiters.length;
    budget.writingCost += writingCost;
    const byKey = new Map<string, Waiter[]>();
    for (const waiter of waiters) {
      const list = byKey.get(waiter.keyId);
      if (list) list.push(waiter);
      else byKey.set(waiter.keyId, [waiter]);
    }
    const leaseRef = budget.ref ?? undefined;
    budget.flushing++;
    let failure: unknown = null;
    // Answered once the flush is over, so a request that sees its answer sees the budget idle.
    const answers: Array<() => void> = [];
    try {
      await Promise.all([...byKey].map(async ([keyId, ofKey]) => {
        let cost = 0;
        let shortfall = 0;
        for (const waiter of ofKey) {
          cost += waiter.cost;
          shortfall += waiter.shortfall;
        }
        let written: { entry: LedgerEntry; leaseKept: boolean };
        try {
          written = await this.#ledger.chargeAggregated(budget.keyId, {
            keyId,
            cost,
            requests: ofKey.length,
            through: new Date().toISOString(),
            leaseRef,
            shortfall,
          });
        } catch (error) {
          budget.waiters.unshift(...ofKey);
          budget.pendingCost += cost;
          budget.pendingShortfall += shortfall;
          failure ??= error;
          return;
        }
        // Swept while this process lived (its instance lease lapsed): admit nothing more from it.
        if (leaseRef && !written.leaseKept && budget.ref === leaseRef) this.#lost(budget);
        const { entry } = written;
        for (const waiter of ofKey) {
          answers.push(() =>
            waiter.resolve({ id: entry.id, amount: -waiter.cost, shortfall: waiter.shortfall })
          );
        }
      }));
    } finally {
      budget.flushing--;
      budget.writing -= waiters.length;
      budget.writingCost -= writingCost;
    }
    for (const answer of answers) answer();
    if (failure) throw failure;
  }

  async #returnLease(budget: KeyBudget): Promise<void> {
    const ref = budget.ref;
    // Forgotten first: a request arriving meanwhile renews under a new lease.
    this.#budgets.delete(budget.keyId);
    if (!ref) return;
    await this.#ledger.returnLease(budget.keyId, { ref, note: "returned: idle" });
  }

  /** The costs finished here and not yet written: units, requests and wallets. */
  unwritten(): { units: number; requests: number; wallets: number } {
    let units = 0;
    let requests = 0;
    let wallets = 0;
    for (const budget of this.#budgets.values()) {
      const pending = budget.waiters.length + budget.writing;
      if (!pending) continue;
      wallets++;
      requests += pending;
      units += budget.pendingCost + budget.writingCost;
    }
    return { units, requests, wallets };
  }

  /** Writes every pending cost now. */
  async flush(): Promise<void> {
    await Promise.allSettled(
      [...this.#budgets.values()].filter((budget) => budget.waiters.length)
        .map((budget) => this.#flush(budget)),
    );
  }

  /**
   * Writes every pending cost and returns every lease with no request in flight (a drain; at a
   * graceful stop, all of them). Costs that cannot be written after a few tries are given up:
   * their requests' settles fail.
   */
  async returnIdle(): Promise<void> {
    for (let attempt = 0; attempt < DRAIN_ATTEMPTS; attempt++) {
      const pending = [...this.#budgets.values()].filter((budget) => budget.waiters.length);
      if (!pending.length) break;
      await Promise.allSettled(pending.map((budget) => this.#flush(budget)));
    }
    for (const budget of this.#budgets.values()) {
      const waiters = budget.waiters;
      budget.waiters = [];
      budget.pendingCost = 0;
      budget.pendingShortfall = 0;
      for (const waiter of waiters) waiter.reject(new Error("the ledger could not be written"));
    }
    const idle = [...this.#budgets.values()].filter((budget) => this.#idle(budget));
    await Promise.allSettled(idle.map((budget) => this.#returnLease(budget)));
    if (!this.#budgets.size) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }
}
