import { assertEquals, assertOk, assertRejects } from "../../helpers/assert.ts";
import { Ledger } from "../../../core/billing/ledger.ts";

async function withLedger(fn: (ledger: Ledger, kv: Deno.Kv, path: string) => Promise<void>) {
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/ledger.kv`);
  try {
    await fn(new Ledger(kv), kv, `${dir}/ledger.kv`);
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
}

async function sumOfEntries(ledger: Ledger, keyId: string) {
  const { data } = await ledger.list(keyId, { limit: 1000, order: "asc" });
  return data.reduce((sum, entry) => sum + entry.amount, 0);
}

const limited = { unlimited: false, credit_limit: 0 };

Deno.test("Ledger settles a hold once: a second settle or a release does nothing", async () => {
  await withLedger(async (ledger) => {
    await ledger.credit("k", 1_000);
    await ledger.hold("k", { limit: limited, ref: "req-1", amount: 300 });
    assertEquals(await ledger.balance("k"), 700);
    const settled = await ledger.settle("k", { limit: limited, ref: "req-1", cost: 120 });
    assertEquals(settled?.amount, 180);
    assertEquals(await ledger.settle("k", { limit: limited, ref: "req-1", cost: 120 }), null);
    assertEquals(await ledger.release("k", { ref: "req-1" }), null);
    assertEquals(await ledger.balance("k"), 880);
    assertEquals(await sumOfEntries(ledger, "k"), 880);
  });
});

Deno.test("Ledger.hold() refuses with insufficient_balance and writes nothing", async () => {
  await withLedger(async (ledger) => {
    await ledger.credit("k", 100);
    await assertRejects(() => ledger.hold("k", { limit: limited, ref: "req-1", amount: 101 }));
    assertEquals(await ledger.balance("k"), 100);
    assertEquals((await ledger.list("k", { limit: 100, order: "asc" })).data.length, 1);
  });
});

Deno.test("Ledger.hold() allows going down to the credit limit, not below", async () => {
  await withLedger(async (ledger) => {
    const limit = { unlimited: false, credit_limit: 50 };
    await ledger.hold("k", { limit, ref: "a", amount: 50 });
    await assertRejects(() => ledger.hold("k", { limit, ref: "b", amount: 1 }));
    await ledger.hold("k", {
      limit: { unlimited: true, credit_limit: 0 },
      ref: "c",
      amount: 1_000,
    });
    assertEquals(await ledger.balance("k"), -1_050);
  });
});

Deno.test("Ledger.settle() never takes a balance below its floor and records the shortfall", async () => {
  await withLedger(async (ledger) => {
    await ledger.credit("k", 100);
    await ledger.hold("k", { limit: limited, ref: "req", amount: 80 });
    const entry = await ledger.settle("k", { limit: limited, ref: "req", cost: 150 });
    assertEquals(entry?.cost, 150);
    assertEquals(entry?.shortfall, 50);
    assertEquals(await ledger.balance("k"), 0);
    assertEquals(await sumOfEntries(ledger, "k"), 0);
  });
});

Deno.test("Ledger under 200 concurrent holds never overdraws and keeps the invariant", async () => {
  await withLedger(async (ledger) => {
    await ledger.credit("k", 5_000);
    const results = await Promise.allSettled(
      Array.from(
        { length: 200 },
        (_, i) => ledger.hold("k", { limit: limited, ref: `req-${i}`, amount: 100 }),
      ),
    );
    assertEquals(results.filter((r) => r.status === "fulfilled").length, 50);
    assertEquals(await ledger.balance("k"), 0);
    assertEquals(await sumOfEntries(ledger, "k"), 0);
  });
});

Deno.test("Ledger on two KV handles of one file keeps the invariant when both race", async () => {
  await withLedger(async (ledger, _kv, path) => {
    const otherKv = await Deno.openKv(path);
    try {
      const other = new Ledger(otherKv);
      await ledger.credit("k", 3_000);
      const work = Array.from(
        { length: 60 },
        (_, i) =>
          (i % 2 ? ledger : other).hold("k", { limit: limited, ref: `req-${i}`, amount: 100 }).then(
            () =>
              (i % 3 ? ledger : other).settle("k", { limit: limited, ref: `req-${i}`, cost: 40 }),
          ),
      );
      const results = await Promise.allSettled(work);
      const ok = results.filter((r) => r.status === "fulfilled").length;
      assertOk(ok >= 30, `only ${ok} of 60 succeeded`);
      const balance = await ledger.balance("k");
      assertOk(balance >= 0);
      assertEquals(await sumOfEntries(ledger, "k"), balance);
    } finally {
      otherKv.close();
    }
  });
});

Deno.test("Ledger.releaseOrphanedHolds() gives back holds without an instance once they are old", async () => {
  await withLedger(async (ledger) => {
    await ledger.credit("k", 500);
    await ledger.hold("k", { limit: limited, ref: "orphan", amount: 200 });
    const isAlive = () => Promise.resolve(true);
    assertEquals(await ledger.releaseOrphanedHolds({ isAlive, maxAgeMs: 60_000 }), 0);
    assertEquals(await ledger.releaseOrphanedHolds({ isAlive, maxAgeMs: 0 }), 1);
    assertEquals(await ledger.balance("k"), 500);
    assertEquals(await ledger.releaseOrphanedHolds({ isAlive, maxAgeMs: 0 }), 0);
  });
});

Deno.test("Ledger.releaseOrphanedHolds() releases a dead instance's holds at once, a live one's never, task holds never", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const dead = new Ledger(kv, { instanceId: "inst_dead" });
    const live = new Ledger(kv, { instanceId: "inst_live" });
    await dead.credit("k", 1_000);
    await dead.hold("k", { limit: limited, ref: "req_dead", amount: 100 });
    await live.hold("k", { limit: limited, ref: "req_live", amount: 100 });
    await dead.hold("k", { limit: limited, ref: "task_x", amount: 100 });
    const isAlive = (id: string) => Promise.resolve(id === "inst_live");
    const sweeps = await Promise.all([
      live.releaseOrphanedHolds({ isAlive, maxAgeMs: 3_600_000 }),
      live.releaseOrphanedHolds({ isAlive, maxAgeMs: 3_600_000 }),
    ]);
    assertEquals(sweeps[0] + sweeps[1], 1);
    assertEquals(await live.balance("k"), 800);
    const releases = [];
    for await (const entry of kv.list<{ type: string; note?: string }>({ prefix: ["ledger"] })) {
      if (entry.value.type === "release") releases.push(entry.value.note);
    }
    assertEquals(releases, [
      "released: instance inst_dead stopped renewing its lease (the process died)",
    ]);
  } finally {
    kv.close();
  }
});

Deno.test("Ledger.credit() with a ref happens once", async () => {
  await withLedger(async (ledger) => {
    await ledger.credit("k", 10, { ref: "invoice-1" });
    await assertRejects(() => ledger.credit("k", 10, { ref: "invoice-1" }));
    assertEquals(await ledger.balance("k"), 10);
  });
});

Deno.test("Ledger.hold() sees credit added by another instance before it refuses", async () => {
  await withLedger(async (ledger, _kv, path) => {
    const otherKv = await Deno.openKv(path);
    try {
      await ledger.credit("k", 10);
      await ledger.hold("k", { limit: limited, ref: "small", amount: 5 });
      await new Ledger(otherKv).credit("k", 1_000);
      await ledger.hold("k", { limit: limited, ref: "large", amount: 900 });
      assertEquals(await ledger.balance("k"), 105);
    } finally {
      otherKv.close();
    }
  });
});

Deno.test("Ledger: a hold released by another instance is not settled again by this one", async () => {
  await withLedger(async (ledger, _kv, path) => {
    const otherKv = await Deno.openKv(path);
    try {
      await ledger.credit("k", 1_000);
      await ledger.hold("k", { limit: limited, ref: "req", amount: 400, uniqueRef: true });
      assertEquals((await new Ledger(otherKv).release("k", { ref: "req" }))?.amount, 400);
      assertEquals(await ledger.settle("k", { limit: limited, ref: "req", cost: 100 }), null);
      assertEquals(await ledger.balance("k"), 1_000);
      assertEquals(await sumOfEntries(ledger, "k"), 1_000);
    } finally {
      otherKv.close();
    }
  });
});

Deno.test("Ledger.creditGuarded() writes the credit and the guard's writes together, or nothing", async () => {
  await withLedger(async (ledger, kv) => {
    const marker = ["test_marker"];
    const refused = await ledger.creditGuarded("k", 50, {
      ref: "gift-1",
      guard: (atomic) => {
        atomic.set(marker, "written");
        return Promise.resolve(false);
      },
    });
    assertEquals(refused, null);
    assertEquals((await kv.get(marker)).value, null);
    assertEquals(await ledger.balance("k"), 0);

    // The guard checks a record another writer moves: the commit fails and the guard runs again.
    await kv.set(["gate"], "open");
    let runs = 0;
    const entry = await ledger.creditGuarded("k", 50, {
      ref: "gift-1",
      note: "guarded",
      guard: async (atomic) => {
        runs++;
        const gate = await kv.get<string>(["gate"]);
        if (runs === 1) await kv.set(["gate"], "open");
        atomic.check(gate).set(marker, "written");
        return true;
      },
    });
    assertEquals(runs, 2);
    assertEquals([entry?.type, entry?.amount, entry?.ref], ["credit", 50, "gift-1"]);
    assertEquals((await kv.get(marker)).value, "written");
    assertEquals(await ledger.balance("k"), 50);
    assertEquals(await sumOfEntries(ledger, "k"), 50);

    // The same ref again: null, and the guard is not asked.
    const again = await ledger.creditGuarded("k", 50, {
      ref: "gift-1",
      guard: () => Promise.reject(new Error("not asked")),
    });
    assertEquals(again, null);
    assertEquals(await ledger.balance("k"), 50);
  });
});
