/** One attempt at a group commit of the ledger, on a real KV. */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import {
  GUARD_REFUSED,
  LedgerBatch,
  type LedgerCaches,
  NEEDS_FRESH_BALANCE,
  type Plan,
  type QueuedChange,
} from "../../../core/billing/ledger_batch.ts";
import type { LedgerEntry } from "../../../core/billing/ledger_records.ts";
import { kvKeys } from "../../../core/kv/kv_keys.ts";

function caches(): LedgerCaches {
  return { balances: new Map(), localHolds: new Map(), leases: new Map() };
}

/** A queued change of `plan`, with its answer kept. */
function change(plan: Plan) {
  const answer: { entry?: LedgerEntry | null; error?: unknown } = {};
  const queued: QueuedChange = {
    plan,
    alone: false,
    resolve: (entry) => answer.entry = entry,
    reject: (error) => answer.error = error,
  };
  return { queued, answer };
}

async function batchOf(kv: Deno.Kv, keyId: string, known: LedgerCaches) {
  const entry = await kv.get<number>(kvKeys.balance(keyId));
  return new LedgerBatch(kv, keyId, { entry, cached: false }, known);
}

Deno.test("LedgerBatch: changes planned in order, written in one commit, caches updated", async () => {
  using kv = await Deno.openKv(":memory:");
  const known = caches();
  const batch = await batchOf(kv, "k", known);
  const credit = change(() => Promise.resolve({ type: "credit", amount: 1_000, ref: "cr_1" }));
  const hold = change(async (view) => {
    assertEquals(view.balance, 1_000, "a plan sees the changes before it");
    view.writeHold("req_1", { key_id: "k", amount: 300, at: new Date().toISOString() });
    await view.addToCounters([{ key: kvKeys.shortfallTotal("k"), delta: 5 }]);
    return { type: "hold", amount: -300, ref: "req_1" };
  });
  const nothing = change(() => Promise.resolve(null));
  const refused = change(() => Promise.reject(new Error("no")));
  const changes = [credit, hold, nothing, refused].map(({ queued }) => queued);
  assertEquals(await batch.plan(changes), "planned");
  assertEquals(credit.answer, {}, "nothing is answered before the commit");
  assertOk(await batch.commit(changes));
  assertEquals(credit.answer.entry?.balance_after, 1_000);
  assertEquals(hold.answer.entry?.balance_after, 700);
  assertEquals(nothing.answer, { entry: null });
  assertEquals((refused.answer.error as Error).message, "no");
  assertEquals((await kv.get(kvKeys.balance("k"))).value, 700);
  assertOk((await kv.get(kvKeys.openHold("req_1"))).value, "the hold is open");
  assertEquals((await kv.get<Deno.KvU64>(kvKeys.shortfallTotal("k"))).value?.value, 5n);
  assertEquals(known.balances.get("k")?.value, 700);
  assertOk(known.localHolds.has("req_1"));
});

Deno.test("LedgerBatch: a balance moved since it was read fails the commit, nothing answered", async () => {
  using kv = await Deno.openKv(":memory:");
  const batch = await batchOf(kv, "k", caches());
  await kv.set(kvKeys.balance("k"), 50);
  const credit = change(() => Promise.resolve({ type: "credit", amount: 10, ref: "cr_1" }));
  assertEquals(await batch.plan([credit.queued]), "planned");
  assertEquals(await batch.commit([credit.queued]), false);
  assertEquals(credit.answer, {});
  assertEquals((await kv.get(kvKeys.balance("k"))).value, 50);
});

Deno.test("LedgerBatch: a plan asking for a fresh balance or refused by its guard stops planning", async () => {
  using kv = await Deno.openKv(":memory:");
  const after = change(() => Promise.resolve({ type: "credit", amount: 10, ref: "cr_2" }));
  const fresh = change(() => Promise.resolve(NEEDS_FRESH_BALANCE));
  const first = await batchOf(kv, "k", caches());
  assertEquals(await first.plan([fresh.queued, after.queued]), "needs_fresh_balance");
  const guarded = change(() => Promise.resolve(GUARD_REFUSED));
  const second = await batchOf(kv, "k", caches());
  assertEquals(await second.plan([guarded.queued]), "answered");
  assertEquals(guarded.answer, { entry: null });
  assertEquals(after.answer, {});
  assertEquals((await kv.get(kvKeys.balance("k"))).versionstamp, null, "nothing was written");
});
