/**
 * What the PostgreSQL store does beyond the KV conformance suite (tests/core/kv/kv_conformance.ts,
 * which runs against it too): expiry and its sweep, versionstamps, its table made on first start
 * by any number of instances at once, no queues, `sslmode`, and exact counts under contention.
 */

import { assertEquals, assertOk, assertRejects } from "../../../helpers/assert.ts";
import { openPostgresKv } from "../../../../core/kv/postgres/postgres_kv.ts";
import { postgresTests } from "../../../helpers/postgres.ts";
import nodePg from "pg";
import { encodeKey } from "../../../../core/kv/postgres/key_codec.ts";

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
      Array.from({ length: 8 }, () => openPostgresKv(url, { sweepEveryMs: 0, poolSize: 2 })),
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
  "postgres store: sslmode in the URL is used (verify-full fails on a server without TLS)",
  async (url) => {
    const withSslMode = (mode: string) => {
      const withMode = new URL(url);
      withMode.searchParams.set("sslmode", mode);
      return withMode.href;
    };
    await assertRejects(() => openPostgresKv(withSslMode("verify-full"), { sweepEveryMs: 0 }));
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

pg.test(
  "postgres store: connections the server ends are made again; the next commit goes through",
  async (url) => {
    const kv = await openPostgresKv(url, { sweepEveryMs: 0, poolSize: 3 });
    const admin = new nodePg.Pool({ connectionString: url, max: 1 });
    try {
      await Promise.all([1, 2, 3].map((n) => kv.set(["c", n], n)));
      const ended = await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE application_name = 'gateway' AND pid <> pg_backend_pid()`);
      assertOk(ended.rowCount! >= 1, "the store's connections were ended");
      const result = await kv.atomic().sum(["c", "n"], 1n).set(["c", 4], 4).commit();
      assertOk(result.ok);
      assertEquals((await kv.get(["c", "n"])).value, new Deno.KvU64(1n), "applied once");
      assertEquals((await kv.get(["c", 4])).value, 4);
    } finally {
      kv.close();
      await admin.end();
    }
  },
  pool,
);

/** Takes the row lock of `key` in another session; the function returned lets it go. */
async function holdRowLock(other: nodePg.Pool, key: Deno.KvKey): Promise<() => Promise<void>> {
  const client = await other.connect();
  await client.query("BEGIN");
  await client.query("SELECT key FROM gateway_kv WHERE key = $1 FOR UPDATE", [encodeKey(key)]);
  return async () => {
    await client.query("ROLLBACK");
    client.release();
  };
}

pg.test(
  "postgres store: a commit held up past the statement timeout fails; nothing is written",
  async (url) => {
    const kv = await openPostgresKv(url, { sweepEveryMs: 0, statementTimeoutMs: 300 });
    const other = new nodePg.Pool({ connectionString: url, max: 1 });
    try {
      await kv.set(["w"], 1);
      const read = await kv.get(["w"]);
      const release = await holdRowLock(other, ["w"]);
      const failed = await kv.atomic().check(read).set(["w"], 2).set(["x"], 1).commit()
        .then(() => undefined, (error) => error);
      await release();
      assertOk(failed?.code === "57014", `a statement timeout, not ${failed}`);
      assertEquals((await kv.get(["w"])).value, 1);
      assertEquals((await kv.get(["x"])).versionstamp, null);
    } finally {
      kv.close();
      await other.end();
    }
  },
  pool,
);

pg.test(
  "postgres store: a connection lost while a commit waits to read is retried; while it writes, the commit log settles it, applied once",
  async (url) => {
    const kv = await openPostgresKv(url, { sweepEveryMs: 0, poolSize: 2 });
    const other = new nodePg.Pool({ connectionString: url, max: 2 });
    /** Ends the store's connection once it waits for a lock; resolves when it did. */
    const endWaiting = async () => {
      for (;;) {
        const ended = await other.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE application_name = 'gateway' AND wait_event_type = 'Lock'`);
        if (ended.rowCount) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const outcome = (commit: Promise<Deno.KvCommitResult | Deno.KvCommitError>) =>
      commit.then(
        (result) => ({ result, error: undefined }),
        (error) => ({ result: undefined, error }),
      );
    try {
      await kv.set(["checked"], 1);
      await kv.set(["written"], 1);
      // Lost while reading its checks (nothing sent to write): tried again, applied once.
      const read = await kv.get(["checked"]);
      let release = await holdRowLock(other, ["checked"]);
      const retried = outcome(
        kv.atomic().check(read).set(["checked"], 2).sum(["n"], 1n).commit(),
      );
      await endWaiting();
      await release();
      assertOk((await retried).result?.ok, `retried: ${Deno.inspect(await retried)}`);
      assertEquals((await kv.get(["n"])).value, new Deno.KvU64(1n));
      // Lost while its writes wait: it may or may not have committed, so it is tried again
      // under its versionstamp, and the commit log says it did not: applied once, by the retry.
      release = await holdRowLock(other, ["written"]);
      const unknown = outcome(kv.atomic().sum(["n"], 1n).set(["written"], 2).commit());
      await endWaiting();
      await release();
      const { result, error } = await unknown;
      assertOk(result?.ok, `settled: ${Deno.inspect({ result, error })}`);
      assertEquals((await kv.get(["n"])).value, new Deno.KvU64(2n), "applied once");
      assertEquals((await kv.get(["written"])).versionstamp, result.versionstamp);
    } finally {
      kv.close();
      await other.end();
    }
  },
  pool,
);

pg.reportIgnored("postgres_kv_test.ts");
