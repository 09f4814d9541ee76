/**
 * What the PostgreSQL store does beyond the KV conformance suite (tests/core/kv/kv_conformance.ts,
 * which runs against it too): expiry and its sweep, versionstamps, its table made on first start
 * by any number of instances at once, no queues, `sslmode`, and exact counts under contention.
 */

import { assertEquals, assertOk, assertRejects } from "../../../helpers/assert.ts";
import { openPostgresKv } from "../../../../core/kv/postgres/postgres_kv.ts";
import { postgresTests } from "../../../helpers/postgres.ts";

const pg = await postgresTests();
const pool = { sanitizeOps: false, sanitizeResources: false };

pg.test(
  "postgres store: an expired entry is absent at once, and the sweep deletes it",
  async (url) => {
    let now = 1_000_000;
    const kv = await openPostgresKv(url, { sweepEveryMs: 0, now: () => now });
    try {
      await kv.set(["t", "short"], "soon gone", { expireIn: 1_000 });
      await kv.atomic().set(["t", "long"], "kept", { expireIn: 60_000 }).commit();
      await kv.set(["t", "forever"], "kept");
      assertEquals((await kv.get(["t", "short"])).value, "soon gone");
      now += 1_000;
      assertEquals((await kv.get(["t", "short"])).versionstamp, null);
      const listed = await Array.fromAsync(kv.list({ prefix: ["t"] }));
      assertEquals(listed.map((entry) => entry.key), [["t", "forever"], ["t", "long"]]);
      const absent = { key: ["t", "short"], versionstamp: null };
      assertOk((await kv.atomic().check(absent).set(["t", "other"], 1).commit()).ok);
      assertEquals(await kv.sweepExpired(), 1);
      assertEquals(await kv.sweepExpired(), 0);
      now += 60_000;
      assertEquals(await kv.sweepExpired(), 1);
      assertEquals((await kv.get(["t", "forever"])).value, "kept");
    } finally {
      kv.close();
    }
  },
  pool,
);

pg.test(
  "postgres store: versionstamps are 20 hex characters, rising commit by commit",
  async (url) => {
    const kv = await openPostgresKv(url, { sweepEveryMs: 0 });
    try {
      const stamps: string[] = [];
      for (let i = 0; i < 5; i++) stamps.push((await kv.set(["v"], i)).versionstamp);
      assertOk(stamps.every((stamp) => /^[0-9a-f]{20}$/.test(stamp)), stamps.join());
      assertEquals(stamps.toSorted(), stamps);
      assertEquals(new Set(stamps).size, stamps.length);
    } finally {
      kv.close();
    }
  },
  pool,
);

pg.test(
  "postgres store: instances starting at once on an empty database all open it",
  async (url) => {
    const stores = await Promise.all(
      Array.from({ length: 4 }, () => openPostgresKv(url, { sweepEveryMs: 0, poolSize: 2 })),
    );
    try {
      await stores[0].set(["shared"], "one table");
      for (const kv of stores) assertEquals((await kv.get(["shared"])).value, "one table");
    } finally {
      for (const kv of stores) kv.close();
    }
  },
  pool,
);

pg.test("postgres store: no queues, so enqueue and listenQueue are refused", async (url) => {
  const kv = await openPostgresKv(url, { sweepEveryMs: 0 });
  try {
    let refused = false;
    try {
      kv.atomic().enqueue({ wake: "tasks" });
    } catch (error) {
      refused = error instanceof TypeError && /no queues/.test(error.message);
    }
    assertOk(refused, "enqueue throws");
    await assertRejects(() => kv.listenQueue(() => {}));
  } finally {
    kv.close();
  }
}, pool);

pg.test(
  "postgres store: sslmode in the URL is used (require fails on a server without TLS)",
  async (url) => {
    const withSslMode = (mode: string) => {
      const withMode = new URL(url);
      withMode.searchParams.set("sslmode", mode);
      return withMode.href;
    };
    await assertRejects(() => openPostgresKv(withSslMode("require"), { sweepEveryMs: 0 }));
    const kv = await openPostgresKv(withSslMode("disable"), { sweepEveryMs: 0 });
    kv.close();
  },
  pool,
);

pg.test(
  "postgres store: 40 racing read-check-write increments from 4 stores lose none",
  async (url) => {
    const stores = await Promise.all(
      Array.from({ length: 4 }, () => openPostgresKv(url, { sweepEveryMs: 0, poolSize: 5 })),
    );
    try {
      await stores[0].set(["balance"], 0);
      const increment = async (kv: (typeof stores)[number], n: number) => {
        for (;;) {
          const read = await kv.get<number>(["balance"]);
          const result = await kv.atomic().check(read).set(["balance"], read.value! + 1)
            .set(["ledger", n], 1).commit();
          if (result.ok) return;
        }
      };
      await Promise.all(Array.from({ length: 40 }, (_, n) => increment(stores[n % 4], n)));
      assertEquals((await stores[1].get(["balance"])).value, 40);
      assertEquals((await Array.fromAsync(stores[2].list({ prefix: ["ledger"] }))).length, 40);
    } finally {
      for (const kv of stores) kv.close();
    }
  },
  pool,
);

pg.reportIgnored("postgres_kv_test.ts");
