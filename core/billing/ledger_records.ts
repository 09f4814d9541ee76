/**
 * The records the ledger keeps in KV (its entries, open holds and budget leases) and a key as
 * billing sees it. Its own file so the ledger's parts (the batch, budget leases) read them
 * without importing the ledger.
 */

import type { SpendLimits } from "./spend_windows.ts";

export type LedgerEntryType =
  | "credit"
  | "hold"
  | "settle"
  | "release"
  | "charge"
  | "lease"
  | "lease_return";

export interface LedgerEntry {
  id: string;
  /**
   * The key the entry came from (a request's hold, settle or charge). Null on an entry of the
   * wallet itself (a credit, a lease) of an account's wallet; a wallet that was one key's before
   * accounts (its id is the key's) names that key on every entry.
   */
  key_id: string | null;
  /** The wallet (ledger) the entry is in: the account's `wallet_id`. */
  wallet_id?: string;
  type: LedgerEntryType;
  /** Signed units: + adds to the balance, − takes from it. */
  amount: number;
  balance_after: number;
  /** The request, task or credit this entry belongs to. */
  ref: string;
  at: string;
  note?: string;
  /** On settle: the full cost of the request. On an aggregated charge: what it took (−amount). */
  cost?: number;
  /**
   * On settle: the part of `cost` the key's credit floor left uncollected. On an aggregated
   * charge: what its requests' costs came to beyond `cost`, left uncollected by the floor.
   */
  shortfall?: number;
  /** On an aggregated charge: how many requests' costs it sums… */
  requests?: number;
  /** …finished up to this moment (the costs added after it are in a later entry). */
  through?: string;
  /** On a lease: the units it reserved (the balance does not move). */
  reserved?: number;
  /** On a lease return: the units the lease still reserved and gives up. */
  returned?: number;
  /** On a lease, an aggregated charge of a lease or a lease return: the process. */
  instance?: string;
}

/**
 * A process's budget lease on a key: `amount` units of the key's balance reserved for that
 * process, which admits requests against it in memory. The balance does not move; every other
 * change of the key counts the leases as spoken for, so the credit floor is never crossed.
 */
export interface BudgetLease {
  /** The wallet the lease reserves from (named `key_id` since before accounts). */
  key_id: string;
  wallet_id?: string;
  instance: string;
  /** The lease's id; its lease, aggregated charges and return entries carry it as `ref`. */
  ref: string;
  /** Units still reserved: leased, less the aggregated charges written since. */
  amount: number;
  at: string;
}

/** An open hold, removed by exactly one settle or release. */
export interface OpenHold {
  /** The key whose request it holds for (its caps count it). */
  key_id: string;
  /** The wallet it holds from; absent when that is `key_id` (every hold before accounts). */
  wallet_id?: string;
  amount: number;
  at: string;
  /** The process that holds it (its instance lease); absent on holds written before. */
  instance?: string;
  /** The spend windows the hold counts in (`day:…`, `week:…`, `month:…`); absent on old holds. */
  spend_windows?: string[];
  /** Tokens held against the key's tokens per minute, in UTC minute `minute`. */
  tokens?: number;
  minute?: number;
}

/** What a key may spend: down to −credit_limit, or without limit. */
export interface SpendingLimit {
  unlimited: boolean;
  credit_limit: number;
}

/** What caps a key's spending beside its balance: spend per UTC period, tokens per minute. */
export interface SpendCaps {
  spend_limits?: SpendLimits | null;
  tpm?: number | null;
}

/** A key as billing sees it: its id, how far it may spend, and its caps. */
export interface BillableKey extends SpendingLimit, SpendCaps {
  id: string;
  /** The wallet it pays from, its account's (absent: the key's own id, as before accounts). */
  wallet_id?: string;
}

/** The wallet `key` pays from. */
export function walletOf(key: { id: string; wallet_id?: string }): string {
  return key.wallet_id ?? key.id;
}
