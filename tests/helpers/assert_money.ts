/** Assertions on a key's money, read through the gateway's admin API. */

import { assertEquals } from "./assert.ts";
import type { TestGateway } from "./gateway.ts";

/** A key on a test gateway; every setup (`setupChat()`, `setupImages()`, …) is one. */
export interface KeyOnGateway {
  gw: TestGateway;
  keyId: string;
}

/**
 * How many requests `entries` bill: a settle or a request's own charge bills one; an aggregated
 * charge (one entry per key and flush interval) the `requests` it sums.
 */
export function requestsBilled(
  entries: ReadonlyArray<{ type: string; requests?: number }>,
): number {
  return entries.filter((entry) => entry.type === "settle" || entry.type === "charge")
    .reduce((sum, entry) => sum + (entry.requests ?? 1), 0);
}

/**
 * Asserts that the key ended where it started: its entries sum to its balance (the ledger
 * invariant), the balance is `opening`, and no hold stays open (each `hold` has a `settle` or
 * `release` with its ref). With `untouched`, the key has no entry but credits at all: the request
 * was refused before anything was held.
 */
export async function assertNothingCharged(
  s: KeyOnGateway,
  opening: number,
  options: { untouched?: boolean } = {},
): Promise<void> {
  const balance = await s.gw.assertLedgerInvariant(s.keyId);
  assertEquals(balance, opening, `balance ${balance}, expected the opening ${opening}`);
  const entries = await s.gw.ledger(s.keyId);
  const closed = new Set(
    entries.filter((entry) => entry.type === "settle" || entry.type === "release")
      .map((entry) => entry.ref),
  );
  const open = entries.filter((entry) => entry.type === "hold" && !closed.has(entry.ref));
  const refs = open.map((entry) => entry.ref);
  assertEquals(refs, [], `holds left open: ${refs.join(", ")}`);
  const returned = new Set(
    entries.filter((entry) => entry.type === "lease_return").map((entry) => entry.ref),
  );
  const leases = entries.filter((entry) => entry.type === "lease" && !returned.has(entry.ref));
  assertEquals(leases.map((entry) => entry.ref), [], "budget leases left open after a drain");
  if (options.untouched) {
    const moves = entries.filter((entry) => entry.type !== "credit")
      .map((entry) => [entry.type, entry.amount]);
    assertEquals(moves, [], `entries other than credits: ${JSON.stringify(moves)}`);
  }
}
