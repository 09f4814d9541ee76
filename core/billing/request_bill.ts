/**
 * The money side of one request: reserve an upper bound before the upstream call, then charge
 * the real cost or give the reservation back, exactly once. A key without spend caps reserves
 * in memory from this process's budget lease and is charged in its next aggregated entry
 * (budget_leases.ts); a key with caps holds in the ledger and settles (the ledger guarantees
 * the once).
 */

import {
  type BillableKey,
  hasSpendCaps,
  type Ledger,
  type LedgerEntry,
  walletOf,
} from "./ledger.ts";
import type { ReceiptEntry } from "./receipt.ts";
import type { Reservation } from "./budget_leases.ts";

/**
 * A reservation on a key for one request. A key without caps reserves from the budget lease
 * (a key without a limit has nothing to reserve) and pays its share of an aggregated `charge`
 * entry when the request ends; a failure writes nothing. A key with spend caps or tokens per
 * minute always holds, even when unlimited: the caps count holds, and a lease cannot tell how
 * much of a cap other instances used. `aggregate: false` makes every key hold (or, unlimited
 * without caps, pay in one `charge` entry of its own).
 */
export class RequestBill {
  readonly #ledger: Ledger;
  readonly #key: BillableKey;
  readonly #ref: string;
  readonly #remedy?: string;
  /** Whether requests of this key hold before the upstream call. */
  readonly #holds: boolean;
  /** Whether the request is charged in an aggregated entry (else alone, or by its hold). */
  readonly #aggregates: boolean;
  /** Reserved from the budget lease and not yet charged or given back. */
  #reservation: Reservation | null = null;
  /** An aggregated bill charged or given back: nothing more may happen. */
  #closed = false;
  held = 0;
  /** What of the settled cost the key's credit floor left uncollected. */
  shortfall = 0;
  /** The ledger entries this bill wrote, oldest first (for the request's receipt). */
  readonly entries: ReceiptEntry[] = [];

  /**
   * A bill of `key` for the request or task `ref`; `remedy` says in a 402 what else than adding
   * credit makes the request fit (see HoldOptions).
   */
  constructor(
    ledger: Ledger,
    of: { key: BillableKey; ref: string; remedy?: string; aggregate?: boolean },
  ) {
    this.#ledger = ledger;
    this.#key = of.key;
    this.#ref = of.ref;
    this.#remedy = of.remedy;
    this.#aggregates = of.aggregate !== false && !hasSpendCaps(of.key);
    this.#holds = !this.#aggregates && (!of.key.unlimited || hasSpendCaps(of.key));
  }

  /** The hold's commit; rejects with 402 when the key cannot cover it. */
  #confirmed: Promise<unknown> = Promise.resolve();

  /**
   * Holds `amount` units. Waits for the commit (and throws 402) unless this process already
   * knows the balance covers it; then the upstream call may run while the hold commits, and
   * `confirmed()` must be awaited before anything is answered. A key with caps always waits:
   * only the commit can tell whether the caps allow the request. `tokens` is the most tokens
   * the request may use, held against the key's tokens per minute.
   */
  async hold(amount: number, options: { tokens?: number } = {}): Promise<void> {
    this.held = amount;
    // An unlimited key without caps commits nothing before its answer: the grace bounds it.
    this.#ledger.refuseBeyondGrace();
    if (this.#aggregates) {
      this.#reservation = await this.#ledger.budgets.reserve(this.#key, {
        amount,
        remedy: this.#remedy,
      });
      return;
    }
    if (!this.#holds) return;
    const ledger = this.#ledger;
    const key = this.#key;
    const wallet = walletOf(key);
    const covered = !hasSpendCaps(key) && ledger.covers(wallet, { limit: key, amount });
    const committing = ledger.hold(wallet, {
      keyId: key.id,
      limit: key,
      ref: this.#ref,
      amount,
      uniqueRef: true,
      remedy: this.#remedy,
      caps: { spend_limits: key.spend_limits, tpm: key.tpm },
      tokens: options.tokens,
    });
    committing.then((entry) => this.#keep(entry), () => {});
    // A hold that lands after the request stopped waiting for the store is given back.
    this.#confirmed = ledger.whileStoreAnswers(committing, () => {
      ledger.release(wallet, {
        ref: this.#ref,
        note: "released: the request stopped waiting for the store",
      }).catch(() => {});
    });
    this.#confirmed.catch(() => {});
    if (!covered) await this.#confirmed;
  }

  /** Waits until the hold is committed; throws its error if it failed. */
  async confirmed(): Promise<void> {
    await this.#confirmed;
  }

  /**
   * Charges `cost` units, returning what the ledger took: all of it, also beyond the hold (an
   * upstream that counted past the request's bound), down to the key's credit floor; what the
   * floor left is `shortfall`. `tokens` (the tokens used) replaces the held tokens in the
   * minute's count.
   */
  async settle(cost: number, options: { tokens?: number } = {}): Promise<number> {
    if (this.#aggregates) {
      if (this.#closed) return 0;
      this.#closed = true;
      const reservation = this.#reservation;
      this.#reservation = null;
      const share = await this.#ledger.budgets.charge(this.#key, { reservation, cost });
      this.entries.push({ id: share.id, amount: share.amount });
      this.shortfall = share.shortfall;
      return -share.amount;
    }
    if (!this.#holds) {
      this.#keep(
        await this.#ledger.charge(walletOf(this.#key), {
          keyId: this.#key.id,
          ref: this.#ref,
          cost,
        }),
      );
      return cost;
    }
    await this.#confirmed.catch(() => {});
    const settled = await this.#ledger.settle(walletOf(this.#key), {
      limit: this.#key,
      ref: this.#ref,
      cost,
      tokens: options.tokens,
    });
    this.#keep(settled);
    this.shortfall = settled?.shortfall ?? 0;
    return cost - this.shortfall;
  }

  /** Whether this bill holds before the upstream call (else it charges once at the end). */
  get holds(): boolean {
    return this.#holds;
  }

  #keep(entry: LedgerEntry | null): void {
    if (entry) this.entries.push({ id: entry.id, amount: entry.amount });
  }

  /** Gives the hold back in full (after its commit, if it committed at all). */
  async release(note: string): Promise<void> {
    if (this.#aggregates) {
      if (!this.#closed && this.#reservation) {
        this.#ledger.budgets.cancel(this.#key, this.#reservation);
      }
      this.#closed = true;
      this.#reservation = null;
      return;
    }
    if (!this.#holds) return;
    if (await this.#confirmed.then(() => false, () => true)) return;
    this.#keep(await this.#ledger.release(walletOf(this.#key), { ref: this.#ref, note }));
  }
}
