/**
 * Reading the ledger back: a key's entries summed against its balance (the invariant, stated),
 * and the entries of one ref (a task) with what they held, settled and refunded.
 */

import { GatewayError } from "../errors.ts";
import { kvKeys } from "../kv/kv_keys.ts";
import { idTimeBound } from "../kv/list_options.ts";
import type { BudgetLease, LedgerEntry } from "./ledger.ts";
import type { KvBackend } from "../kv/kv_backend.ts";

export interface LedgerVerification {
  key_id: string;
  balance: number;
  entries_sum: number;
  entries: number;
  /** Whether the balance equals the sum of the entries. */
  ok: boolean;
  /** Holds with no settle or release yet, and the units they hold. */
  holds_open: number;
  held_open: number;
  /** Budget leases open on the key (one per instance at most) and the units they reserve. */
  leases_open: number;
  leased_open: number;
}

/** Reads of a key's whole ledger tried before giving up while it keeps changing. */
const VERIFY_TRIES = 5;

/**
 * Sums every entry of `keyId` and compares with its balance. The balance record changes with
 * every entry, so a sum read between two equal reads of it is of one consistent state; while the
 * key keeps moving, the read is tried again (then 503).
 */
export async function verifyLedger(kv: KvBackend, keyId: string): Promise<LedgerVerification> {
  for (let attempt = 0; attempt < VERIFY_TRIES; attempt++) {
    const before = await kv.get<number>(kvKeys.balance(keyId));
    let sum = 0;
    let count = 0;
    const open = new Map<string, number>();
    for await (const { value } of kv.list<LedgerEntry>({ prefix: kvKeys.ledgerOfKey(keyId) })) {
      sum += value.amount;
      count++;
      if (value.type === "hold") open.set(value.ref, -value.amount);
      if (value.type === "settle" || value.type === "release") open.delete(value.ref);
    }
    let leases = 0;
    let leased = 0;
    for await (const { value } of kv.list<BudgetLease>({ prefix: kvKeys.budgetLeasesOf(keyId) })) {
      leases++;
      leased += value.amount;
    }
    const after = await kv.get<number>(kvKeys.balance(keyId));
    if (after.versionstamp !== before.versionstamp) continue;
    const balance = after.value ?? 0;
    return {
      key_id: keyId,
      balance,
      entries_sum: sum,
      entries: count,
      ok: balance === sum,
      holds_open: open.size,
      held_open: [...open.values()].reduce((total, amount) => total + amount, 0),
      leases_open: leases,
      leased_open: leased,
    };
  }
  throw new GatewayError(
    "ledger_busy",
    503,
    `The ledger of key '${keyId}' kept changing while it was read; retry`,
    { retryable: true },
  );
}

/** What one ref's entries did: held, settled (collected), refunded (given back). */
export interface RefBilling {
  held: number;
  settled: number;
  refunded: number;
  /** The part of the cost a credit floor left uncollected. */
  shortfall: number;
  entry_ids: string[];
  entries: LedgerEntry[];
}

/** Entries read at most when looking for one ref's (a long-running task on a busy key). */
const MAX_SCANNED = 50_000;

/** The billing of `entries` (all of one ref). Pure. */
export function billingOf(entries: readonly LedgerEntry[]): RefBilling {
  let held = 0;
  let settled = 0;
  let refunded = 0;
  let shortfall = 0;
  for (const entry of entries) {
    if (entry.type === "hold") held += -entry.amount;
    if (entry.type === "release") refunded += entry.amount;
    if (entry.type === "charge") settled += -entry.amount;
    if (entry.type === "settle") {
      const hold = entries.find((other) => other.type === "hold")?.amount ?? 0;
      refunded += entry.amount;
      settled += -hold - entry.amount;
      shortfall += entry.shortfall ?? 0;
    }
  }
  return {
    held,
    settled,
    refunded,
    shortfall,
    entry_ids: entries.map((entry) => entry.id),
    entries: [...entries],
  };
}

/**
 * The entries of `ref` on `keyId`, written at or after `sinceMs` (entry ids are time-ordered, so
 * the scan starts there), read until the ref is closed by a settle or release.
 */
export async function entriesOfRef(
  kv: KvBackend,
  { keyId, ref, sinceMs }: { keyId: string; ref: string; sinceMs: number },
): Promise<LedgerEntry[]> {
  const found: LedgerEntry[] = [];
  let scanned = 0;
  const prefix = kvKeys.ledgerOfKey(keyId);
  const selector = { prefix, start: [...prefix, idTimeBound("le", sinceMs)] };
  for await (const { value } of kv.list<LedgerEntry>(selector)) {
    if (++scanned > MAX_SCANNED) break;
    if (value.ref !== ref) continue;
    found.push(value);
    if (value.type === "settle" || value.type === "release") break;
  }
  return found;
}
