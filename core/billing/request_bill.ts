/**
 * The money side of one request: hold an upper bound before the upstream call, then settle to
 * the real cost or release in full, exactly once (the ledger guarantees the once).
 */

import type { BillableKey, Ledger, LedgerEntry } from "./ledger.ts";
import type { ReceiptEntry } from "./receipt.ts";

/**
 * A hold on a key for one request. A key without a limit has nothing to reserve: it pays in one
 * `charge` entry when the request ends, and a failure writes nothing.
 */
export class RequestBill {
  readonly #ledger: Ledger;
  readonly #key: BillableKey;
  readonly #ref: string;
  readonly #remedy?: string;
  held = 0;
  /** The ledger entries this bill wrote, oldest first (for the request's receipt). */
  readonly entries: ReceiptEntry[] = [];

  /**
   * A bill of `key` for the request or task `ref`; `remedy` says in a 402 what else than adding
   * credit makes the request fit (see HoldOptions).
   */
  constructor(ledger: Ledger, of: { key: BillableKey; ref: string; remedy?: string }) {
    this.#ledger = ledger;
    this.#key = of.key;
    this.#ref = of.ref;
    this.#remedy = of.remedy;
  }

  /** The hold's commit; rejects with 402 when the key cannot cover it. */
  #confirmed: Promise<unknown> = Promise.resolve();

  /**
   * Holds `amount` units. Waits for the commit (and throws 402) unless this process already
   * knows the balance covers it; then the upstream call may run while the hold commits, and
   * `confirmed()` must be awaited before anything is answered.
   */
  async hold(amount: number): Promise<void> {
    this.held = amount;
    if (this.#key.unlimited) return;
    const ledger = this.#ledger;
    const covered = ledger.covers(this.#key.id, { limit: this.#key, amount: this.held });
    const committing = ledger.hold(this.#key.id, {
      limit: this.#key,
      ref: this.#ref,
      amount: this.held,
      uniqueRef: true,
      remedy: this.#remedy,
    });
    committing.then((entry) => this.#keep(entry), () => {});
    this.#confirmed = committing;
    if (!covered) await committing;
  }

  /** Waits until the hold is committed; throws its error if it failed. */
  async confirmed(): Promise<void> {
    await this.#confirmed;
  }

  /**
   * Charges `cost` units, returning what was charged: never more than was held (the hold is the
   * most the request could cost; a count beyond it is the upstream's error, not the key's debt).
   */
  async settle(requested: number): Promise<number> {
    const cost = Math.min(requested, this.held);
    if (this.#key.unlimited) {
      this.#keep(await this.#ledger.charge(this.#key.id, { ref: this.#ref, cost }));
      return cost;
    }
    await this.#confirmed.catch(() => {});
    this.#keep(
      await this.#ledger.settle(this.#key.id, { limit: this.#key, ref: this.#ref, cost }),
    );
    return cost;
  }

  #keep(entry: LedgerEntry | null): void {
    if (entry) this.entries.push({ id: entry.id, amount: entry.amount });
  }

  /** Gives the hold back in full (after its commit, if it committed at all). */
  async release(note: string): Promise<void> {
    if (this.#key.unlimited) return;
    if (await this.#confirmed.then(() => false, () => true)) return;
    this.#keep(await this.#ledger.release(this.#key.id, { ref: this.#ref, note }));
  }
}
