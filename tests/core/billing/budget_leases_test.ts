import { assertEquals, assertOk, assertRejects } from "../../helpers/assert.ts";
import { type BillableKey, type BudgetLease, Ledger } from "../../../core/billing/ledger.ts";
import { verifyLedger } from "../../../core/billing/ledger_audit.ts";
import { kvKeys } from "../../../core/kv/kv_keys.ts";

/** Two ledgers (two instances) on one KV file, each on its own handle. */
async function withInstances(
  fn: (a: Ledger, b: Ledger, kv: Deno.Kv) => Promise<void>,
) {
  const dir = await Deno.makeTempDir();
  const kvA = await Deno.openKv(`${dir}/ledger.kv`);
  const kvB = await Deno.openKv(`${dir}/ledger.kv`);
  const a = new Ledger(kvA, { instanceId: "inst_a" });
  const b = new Ledger(kvB, { instanceId: "inst_b" });
  try {
    await fn(a, b, kvA);
  } finally {
    await a.budgets.returnIdle();
    await b.budgets.returnIdle();
    kvA.close();
    kvB.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const key: BillableKey = { id: "k", unlimited: false, credit_limit: 0 };

/** The error `promise` rejects with (fails if it resolves). */
async function rejection(promise: Promise<unknown>): Promise<{ status?: number; code?: string }> {
  const outcome = await promise.then(() => null, (error) => error);
  assertOk(outcome, "expected a rejection");
  return outcome;
}

async function entriesOf(ledger: Ledger) {
  return (await ledger.list("k", { limit: 1000, order: "asc" })).data;
}

async function openLeases(kv: Deno.Kv): Promise<BudgetLease[]> {
  const found = await Array.fromAsync(kv.list<BudgetLease>({ prefix: kvKeys.budgetLeases() }));
  return found.map((entry) => entry.value);
}

Deno.test("Ledger.takeLease() reserves without moving the balance; holds count it as spoken for", async () => {
  await withInstances(async (a, b, kv) => {
    await a.credit("k", 1_000);
    const lease = await a.takeLease("k", { limit: key, need: 100, want: 700 });
    assertEquals([lease.type, lease.amount, lease.reserved], ["lease", 0, 700]);
    assertEquals(await a.balance("k"), 1_000);
    // Another instance sees 300 left: a hold of 301 is refused, one of 300 passes.
    await assertRejects(() => b.hold("k", { limit: key, ref: "r1", amount: 301 }));
    await b.hold("k", { limit: key, ref: "r2", amount: 300 });
    // Nothing is left: a lease needing 1 unit is refused with 402.
    const refused = await rejection(b.takeLease("k", { limit: key, need: 1, want: 10 }));
    assertEquals(refused.status, 402);
    const verified = await verifyLedger(kv, "k");
    assertEquals([verified.ok, verified.leases_open, verified.leased_open], [true, 1, 700]);
  });
});

Deno.test("Ledger.takeLease() on two instances at once never reserves past the credit floor", async () => {
  await withInstances(async (a, b, kv) => {
    await a.credit("k", 10_000);
    const limit = { ...key, credit_limit: 2_000 };
    const results = await Promise.allSettled(
      Array.from(
        { length: 60 },
        (_, i) => (i % 2 ? a : b).takeLease("k", { limit, need: 150, want: 700 }),
      ),
    );
    const granted = results.flatMap((result) =>
      result.status === "fulfilled" ? [result.value.reserved!] : []
    );
    const leased = (await openLeases(kv)).reduce((sum, lease) => sum + lease.amount, 0);
    assertEquals(leased, granted.reduce((sum, units) => sum + units, 0));
    assertOk(leased <= 12_000 && leased > 12_000 - 150, `leased ${leased}`);
    assertEquals(await a.balance("k"), 10_000);
  });
});

Deno.test("Ledger.returnLease(): once, whoever asks (the owner or a sweep)", async () => {
  await withInstances(async (a, b, kv) => {
    await a.credit("k", 1_000);
    const { ref } = await a.takeLease("k", { limit: key, need: 10, want: 500 });
    const returns = await Promise.all([
      a.returnLease("k", { ref, note: "idle" }),
      b.returnLease("k", { ref, note: "swept", instance: "inst_a" }),
      b.releaseOrphanedHolds({ isAlive: () => Promise.resolve(false), maxAgeMs: 0 }),
    ]);
    const written = returns.slice(0, 2).filter((entry) => entry !== null);
    const swept = returns[2] as number;
    assertEquals(written.length + swept, 1);
    assertEquals((await openLeases(kv)).length, 0);
    const types = (await entriesOf(a)).map((entry) => entry.type);
    assertEquals(types, ["credit", "lease", "lease_return"]);
    assertEquals(await a.balance("k"), 1_000);
  });
});

Deno.test("Ledger.releaseOrphanedHolds() returns a dead instance's lease, not a live one's", async () => {
  await withInstances(async (a, b, kv) => {
    await a.credit("k", 1_000);
    await a.takeLease("k", { limit: key, need: 10, want: 300 });
    await b.takeLease("k", { limit: key, need: 10, want: 300 });
    const isAlive = (id: string) => Promise.resolve(id === "inst_b");
    assertEquals(await b.releaseOrphanedHolds({ isAlive, maxAgeMs: 60_000 }), 1);
    assertEquals(await b.releaseOrphanedHolds({ isAlive, maxAgeMs: 60_000 }), 0);
    assertEquals((await openLeases(kv)).map((lease) => lease.instance), ["inst_b"]);
    const returned = (await entriesOf(a)).find((entry) => entry.type === "lease_return")!;
    assertEquals([returned.instance, returned.returned], ["inst_a", 300]);
    assertOk(returned.note?.includes("the process died"));
  });
});

Deno.test("Ledger.chargeAggregated() takes the summed cost and shrinks the lease by as much", async () => {
  await withInstances(async (a, b, kv) => {
    await a.credit("k", 1_000);
    const { ref } = await a.takeLease("k", { limit: key, need: 10, want: 600 });
    const through = new Date().toISOString();
    const { entry, leaseKept } = await a.chargeAggregated("k", {
      cost: 250,
      requests: 5,
      through,
      leaseRef: ref,
    });
    assertEquals(leaseKept, true);
    assertEquals([entry.type, entry.amount, entry.cost, entry.requests], ["charge", -250, 250, 5]);
    assertEquals((await openLeases(kv))[0].amount, 350);
    assertEquals(await a.balance("k"), 750);
    // 750 − 350 reserved: another instance may hold 400, not more.
    await assertRejects(() => b.hold("k", { limit: key, ref: "r", amount: 401 }));
    // A lease swept meanwhile: the charge is still written, and says the lease is gone.
    await b.returnLease("k", { ref, note: "swept", instance: "inst_a" });
    const late = await a.chargeAggregated("k", { cost: 10, requests: 1, through, leaseRef: ref });
    assertEquals(late.leaseKept, false);
    assertEquals(await a.balance("k"), 740);
    assertEquals((await verifyLedger(kv, "k")).ok, true);
  });
});

Deno.test("BudgetLeases: requests admitted in memory, one charge entry for many, shares add up", async () => {
  await withInstances(async (a, _b, kv) => {
    await a.credit("k", 100_000);
    const reservations = await Promise.all(
      Array.from({ length: 20 }, () => a.budgets.reserve(key, { amount: 1_000 })),
    );
    // A lease covers 16 requests of the size that asked for it: two lease commits for 20.
    assertEquals((await entriesOf(a)).filter((entry) => entry.type === "lease").length, 2);
    const shares = await Promise.all(
      reservations.map((reservation, i) => a.budgets.charge(key, { reservation, cost: 10 + i })),
    );
    const ids = new Set(shares.map((share) => share.id));
    const charges = (await entriesOf(a)).filter((entry) => entry.type === "charge");
    assertEquals(charges.length, ids.size);
    assertEquals(charges.reduce((sum, entry) => sum + entry.requests!, 0), 20);
    for (const charge of charges) {
      const mine = shares.filter((share) => share.id === charge.id);
      assertEquals(-mine.reduce((sum, share) => sum + share.amount, 0), charge.cost);
    }
    const total = 20 * 10 + (19 * 20) / 2;
    assertEquals(await a.balance("k"), 100_000 - total);
    await a.budgets.returnIdle();
    assertEquals((await openLeases(kv)).length, 0);
    assertEquals((await verifyLedger(kv, "k")).ok, true);
  });
});

Deno.test("BudgetLeases: 200 requests on two instances never spend past the floor", async () => {
  await withInstances(async (a, b, kv) => {
    await a.credit("k", 40_000);
    const request = async (ledger: Ledger) => {
      const reservation = await ledger.budgets.reserve(key, { amount: 1_000 });
      await ledger.budgets.charge(key, { reservation, cost: 1_000 });
    };
    const results = await Promise.allSettled(
      Array.from({ length: 200 }, (_, i) => request(i % 2 ? a : b)),
    );
    const ok = results.filter((result) => result.status === "fulfilled").length;
    const refused = results.filter((result) =>
      result.status === "rejected" && (result.reason as { status?: number }).status === 402
    ).length;
    assertEquals(ok + refused, 200);
    assertOk(ok > 0 && ok <= 40, `${ok} admitted`);
    await a.budgets.returnIdle();
    await b.budgets.returnIdle();
    const balance = await a.balance("k");
    assertEquals(balance, 40_000 - ok * 1_000);
    assertOk(balance >= 0);
    assertEquals((await verifyLedger(kv, "k")).ok, true);
    assertEquals((await openLeases(kv)).length, 0);
  });
});

Deno.test("BudgetLeases: a request refused with 402 when the key cannot cover it, nothing written", async () => {
  await withInstances(async (a) => {
    await a.credit("k", 500);
    const error = await rejection(a.budgets.reserve(key, { amount: 501 }));
    assertEquals(error.code, "insufficient_balance");
    assertEquals((await entriesOf(a)).map((entry) => entry.type), ["credit"]);
  });
});

Deno.test("BudgetLeases: a key made unlimited still returns the lease it took while limited", async () => {
  await withInstances(async (a, _b, kv) => {
    await a.credit("k", 10_000);
    const reservation = await a.budgets.reserve(key, { amount: 100 });
    await a.budgets.charge(key, { reservation, cost: 40 });
    const unlimited = { ...key, unlimited: true };
    const later = await a.budgets.reserve(unlimited, { amount: 100 });
    await a.budgets.charge(unlimited, { reservation: later, cost: 40 });
    await a.budgets.returnIdle();
    assertEquals((await openLeases(kv)).length, 0);
    assertEquals(await a.balance("k"), 10_000 - 80);
    assertEquals((await verifyLedger(kv, "k")).ok, true);
  });
});

Deno.test("BudgetLeases: a cost beyond the reservation is taken from the lease, then the key, then is the shortfall", async () => {
  await withInstances(async (a, _b, kv) => {
    await a.credit("k", 2_000);
    const limit = { ...key, credit_limit: 500 };
    // A lease of 16 × 50 = 800 units; the key has 1,700 more down to its floor.
    const first = await a.budgets.reserve(limit, { amount: 50 });
    const fromLease = await a.budgets.charge(limit, { reservation: first, cost: 300 });
    assertEquals([fromLease.amount, fromLease.shortfall], [-300, 0]);
    // 500 left in the lease: 1,000 more extends it from the key's balance.
    const second = await a.budgets.reserve(limit, { amount: 50 });
    const extended = await a.budgets.charge(limit, { reservation: second, cost: 1_500 });
    assertEquals([extended.amount, extended.shortfall], [-1_500, 0]);
    // 700 left down to the floor: a cost of 1,000 takes 700, 300 is the shortfall.
    const third = await a.budgets.reserve(limit, { amount: 50 });
    const floored = await a.budgets.charge(limit, { reservation: third, cost: 1_000 });
    assertEquals([floored.amount, floored.shortfall], [-700, 300]);
    await a.budgets.returnIdle();
    assertEquals(await a.balance("k"), -500);
    const charges = (await entriesOf(a)).filter((entry) => entry.type === "charge");
    assertEquals(charges.reduce((sum, entry) => sum + entry.cost!, 0), 2_500);
    assertEquals(charges.reduce((sum, entry) => sum + (entry.shortfall ?? 0), 0), 300);
    assertEquals((await a.shortfalls(["k"])).get("k"), 300);
    assertEquals((await verifyLedger(kv, "k")).ok, true);
    assertEquals((await openLeases(kv)).length, 0);
  });
});

Deno.test("BudgetLeases: 200 requests costing past their reservations on two instances never spend past the floor", async () => {
  await withInstances(async (a, b, kv) => {
    await a.credit("k", 40_000);
    const limit = { ...key, credit_limit: 1_000 };
    const shortfalls: number[] = [];
    const charged: number[] = [];
    const request = async (ledger: Ledger, i: number) => {
      const reservation = await ledger.budgets.reserve(limit, { amount: 100 });
      const share = await ledger.budgets.charge(limit, { reservation, cost: 100 + 300 * (i % 5) });
      charged.push(-share.amount);
      shortfalls.push(share.shortfall);
      assertEquals(-share.amount + share.shortfall, 100 + 300 * (i % 5));
    };
    await Promise.allSettled(Array.from({ length: 200 }, (_, i) => request(i % 2 ? a : b, i)));
    await a.budgets.returnIdle();
    await b.budgets.returnIdle();
    const balance = await a.balance("k");
    assertEquals(balance, 40_000 - charged.reduce((sum, units) => sum + units, 0));
    assertOk(balance >= -1_000, `balance ${balance} below the floor`);
    const shortfall = shortfalls.reduce((sum, units) => sum + units, 0);
    assertEquals((await a.shortfalls(["k"])).get("k"), shortfall);
    const lowest = Math.min(...(await entriesOf(a)).map((entry) => entry.balance_after));
    assertOk(lowest >= -1_000, `an entry left ${lowest}`);
    assertEquals((await verifyLedger(kv, "k")).ok, true);
    assertEquals((await openLeases(kv)).length, 0);
  });
});

Deno.test("Ledger.settle() beyond the hold takes only what no other instance's lease reserves", async () => {
  await withInstances(async (a, b, kv) => {
    await a.credit("k", 1_000);
    await b.takeLease("k", { limit: key, need: 100, want: 600 });
    await a.hold("k", { limit: key, ref: "r", amount: 100 });
    // 300 units are neither held nor leased: a cost of 900 collects 100 + 300.
    const settled = await a.settle("k", { limit: key, ref: "r", cost: 900 });
    assertEquals([settled!.amount, settled!.cost, settled!.shortfall], [-300, 900, 500]);
    assertEquals(await a.balance("k"), 600);
    assertEquals((await a.shortfalls(["k"])).get("k"), 500);
    await b.budgets.returnIdle();
    assertEquals((await verifyLedger(kv, "k")).ok, true);
  });
});
