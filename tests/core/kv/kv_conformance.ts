/**
 * The KV conformance suite: what the gateway's stores rely on of a `KvBackend`
 * (core/kv/kv_backend.ts), checked against a real one. `runKvConformance(name, open)` registers
 * one test per rule; each opens its own handle, works under a key prefix of its own (so one store
 * may serve every test) and closes it. A new backend passes this before the stores may use it.
 *
 * Rules that differ between backends are held at what the gateway itself stays within: 10 checks
 * per commit (self-hosted denokv allows no more; the embedded KV allows 100), and expiry, which is
 * lazy (an expired value may still be read), only as far as a value being there before it expires.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import type { KvBackend } from "../../../core/kv/kv_backend.ts";

export interface KvConformanceOptions {
  /** The backend has queues (`atomic().enqueue` + `listenQueue`): the embedded KV has. */
  queues?: boolean;
  /** Why the suite cannot run here; its tests are then registered as ignored. */
  ignore?: string;
  /**
   * Whether Deno's op and resource sanitizers run (default true). A backend over a connection
   * pool (PostgreSQL) keeps sockets open past a test and closes them asynchronously.
   */
  sanitize?: boolean;
}

/** A test of the suite: `p` is a key prefix no other test uses. */
type Rule = (kv: KvBackend, p: Deno.KvKey) => Promise<void>;

/**
 * Registers the suite's tests for the backend `open` gives (a new handle on each call); returns
 * how many.
 */
export function runKvConformance(
  name: string,
  open: () => Promise<KvBackend>,
  options: KvConformanceOptions = {},
): number {
  const rules: [string, Rule][] = [...RULES];
  if (options.queues) rules.push(...QUEUE_RULES);
  for (const [rule, fn] of rules) {
    Deno.test({
      name: `KV conformance (${name}): ${rule}`,
      ignore: options.ignore !== undefined,
      sanitizeOps: options.sanitize ?? true,
      sanitizeResources: options.sanitize ?? true,
      async fn() {
        const kv = await open();
        try {
          await fn(kv, ["kv_conformance", crypto.randomUUID()]);
        } finally {
          closeOnce(kv);
        }
      },
    });
  }
  return rules.length;
}

/** Closes `kv` unless the rule did (the queue rule must, to end its listener). */
function closeOnce(kv: KvBackend): void {
  try {
    kv.close();
  } catch (error) {
    if (!(error instanceof Deno.errors.BadResource)) throw error;
  }
}

const KEY_LIMIT = 2_048;
const VALUE_LIMIT = 65_536;
/** The most checks the gateway puts in one commit (the ledger's own, with the balance check). */
const GATEWAY_MAX_CHECKS = 10;

async function keysOf(
  kv: KvBackend,
  selector: Deno.KvListSelector,
  options?: Parameters<KvBackend["list"]>[1],
): Promise<Deno.KvKey[]> {
  return (await Array.fromAsync(kv.list(selector, options))).map((entry) => entry.key);
}

async function rejects(work: () => Promise<unknown>, what: string): Promise<void> {
  const failed = await work().then(() => false, () => true);
  assertOk(failed, `${what} should throw`);
}

/** A key under `p` whose encoding is `bytes` long (ASCII string parts: 1 + length + 1 bytes). */
function keyOfSize(p: Deno.KvKey, bytes: number): Deno.KvKey {
  const prefixBytes = p.reduce<number>((sum, part) => sum + String(part).length + 2, 0);
  return [...p, "k".repeat(bytes - prefixBytes - 2)];
}

const RULES: [string, Rule][] = [
  ["get, set and delete round-trip the values the stores write", async (kv, p) => {
    const values: unknown[] = [
      { id: "a", n: 1.5, nested: { list: [1, "two", null], flag: true } },
      "text",
      -12,
      12n,
      false,
      null,
      new Uint8Array([0, 1, 255]),
      new Deno.KvU64(7n),
    ];
    for (const [index, value] of values.entries()) await kv.set([...p, index], value);
    for (const [index, value] of values.entries()) {
      assertEquals((await kv.get([...p, index])).value, value);
    }
    const missing = await kv.get([...p, "missing"]);
    assertEquals([missing.value, missing.versionstamp], [null, null]);
    await kv.delete([...p, 0]);
    assertEquals((await kv.get([...p, 0])).versionstamp, null);
  }],

  ["getMany answers in the order asked, null for a missing key", async (kv, p) => {
    await kv.set([...p, "a"], 1);
    await kv.set([...p, "c"], 3);
    const found = await kv.getMany<[number, number, number]>([
      [...p, "c"],
      [...p, "b"],
      [...p, "a"],
    ]);
    assertEquals(found.map((entry) => [entry.key, entry.value]), [
      [[...p, "c"], 3],
      [[...p, "b"], null],
      [[...p, "a"], 1],
    ]);
    assertEquals(found[1].versionstamp, null);
  }],

  [
    "a commit's versionstamp is every written key's, and later commits' are greater",
    async (kv, p) => {
      const first = await kv.set([...p, "a"], 1);
      assertEquals((await kv.get([...p, "a"])).versionstamp, first.versionstamp);
      const second = await kv.atomic().set([...p, "a"], 2).set([...p, "b"], 2).sum([...p, "n"], 1n)
        .commit();
      assertOk(second.ok);
      for (const key of ["a", "b", "n"]) {
        assertEquals((await kv.get([...p, key])).versionstamp, second.versionstamp, key);
      }
      assertOk(second.versionstamp > first.versionstamp, "versionstamps increase");
      const third = await kv.atomic().delete([...p, "b"]).commit();
      assertOk(third.ok && third.versionstamp > second.versionstamp, "a delete commits too");
    },
  ],

  ["a check on the versionstamp read passes, a stale one fails the whole commit", async (kv, p) => {
    await kv.set([...p, "record"], "v1");
    const read = await kv.get([...p, "record"]);
    const won = await kv.atomic().check(read).set([...p, "record"], "v2").commit();
    assertOk(won.ok);
    const stale = await kv.atomic().check(read).set([...p, "record"], "v3")
      .set([...p, "other"], "x").sum([...p, "n"], 1n).delete([...p, "record"]).commit();
    assertEquals(stale.ok, false);
    assertEquals((await kv.get([...p, "record"])).value, "v2");
    assertEquals((await kv.get([...p, "other"])).versionstamp, null);
    assertEquals((await kv.get([...p, "n"])).versionstamp, null);
    // The ledger and the delivery store check against the versionstamp a commit returned.
    const checked = await kv.atomic().check({
      key: [...p, "record"],
      versionstamp: won.versionstamp,
    })
      .set([...p, "record"], "v4").commit();
    assertOk(checked.ok);
  }],

  ["a check with versionstamp null passes only while the key is absent", async (kv, p) => {
    const absent = { key: [...p, "once"], versionstamp: null };
    assertOk((await kv.atomic().check(absent).set([...p, "once"], 1).commit()).ok);
    assertEquals((await kv.atomic().check(absent).set([...p, "once"], 2).commit()).ok, false);
    assertEquals((await kv.get([...p, "once"])).value, 1);
    await kv.delete([...p, "once"]);
    assertOk((await kv.atomic().check(absent).set([...p, "once"], 3).commit()).ok);
  }],

  [`${GATEWAY_MAX_CHECKS} checks in one commit, and each one counts`, async (kv, p) => {
    const keys = Array.from({ length: GATEWAY_MAX_CHECKS }, (_, i) => [...p, "c", i]);
    const checkAll = () => kv.atomic().check(...keys.map((key) => ({ key, versionstamp: null })));
    assertOk((await checkAll().set([...p, "done"], 1).commit()).ok);
    await kv.set(keys[GATEWAY_MAX_CHECKS - 1], "taken");
    assertEquals((await checkAll().set([...p, "done"], 2).commit()).ok, false);
  }],

  ["sum adds to a KvU64 (0 when absent), modulo 2^64", async (kv, p) => {
    await kv.atomic().sum([...p, "n"], 5n).commit();
    assertEquals((await kv.get([...p, "n"])).value, new Deno.KvU64(5n));
    // The ledger sets a counter outright, then sums onto it.
    await kv.set([...p, "set"], new Deno.KvU64(10n));
    await kv.atomic().sum([...p, "set"], 3n).sum([...p, "n"], 1n).commit();
    assertEquals((await kv.get([...p, "set"])).value, new Deno.KvU64(13n));
    assertEquals((await kv.get([...p, "n"])).value, new Deno.KvU64(6n));
    // A decrement is a sum of 2^64 - d (the ledger's sumOperand).
    await kv.atomic().sum([...p, "set"], 2n ** 64n - 4n).commit();
    assertEquals((await kv.get([...p, "set"])).value, new Deno.KvU64(9n));
    await kv.atomic().sum([...p, "set"], 2n ** 64n - 10n).commit();
    assertEquals((await kv.get([...p, "set"])).value, new Deno.KvU64(2n ** 64n - 1n));
  }],

  ["a value set with expireIn is there until it expires (expiry itself is lazy)", async (kv, p) => {
    await kv.set([...p, "set"], "kept", { expireIn: 60_000 });
    await kv.atomic().set([...p, "atomic"], "kept", { expireIn: 60_000 }).commit();
    assertEquals((await kv.get([...p, "set"])).value, "kept");
    assertEquals((await kv.get([...p, "atomic"])).value, "kept");
    const entry = await kv.get([...p, "set"]);
    assertOk((await kv.atomic().check(entry).set([...p, "set"], "next").commit()).ok);
  }],

  [
    "list orders keys part by part: shorter first, numbers by value, strings by bytes",
    async (kv, p) => {
      const keys: Deno.KvKey[] = [
        [...p, "b"],
        [...p, "a", 10],
        [...p, "a"],
        [...p, "a", 2],
        [...p, "a", -1],
        [...p, "B"],
        [...p, "a", 2, "x"],
        [...p, "ab"],
      ];
      for (const key of keys) await kv.set(key, 1);
      assertEquals(await keysOf(kv, { prefix: p }), [
        [...p, "B"],
        [...p, "a"],
        [...p, "a", -1],
        [...p, "a", 2],
        [...p, "a", 2, "x"],
        [...p, "a", 10],
        [...p, "ab"],
        [...p, "b"],
      ]);
    },
  ],

  ["list orders key part types: bytes, string, bigint, number, boolean", async (kv, p) => {
    // Deno's manual writes "number < bigint"; the embedded KV and denokv both order bigint first.
    const parts: Deno.KvKeyPart[] = [true, 1, 1n, "a", new Uint8Array([1]), false, -1, 0n, ""];
    for (const part of parts) await kv.set([...p, part], 1);
    assertEquals((await keysOf(kv, { prefix: p })).map((key) => key.at(-1)), [
      new Uint8Array([1]),
      "",
      "a",
      0n,
      1n,
      -1,
      1,
      false,
      true,
    ]);
  }],

  [
    "prefix lists what is under it (not the prefix key); start is inclusive, end exclusive",
    async (kv, p) => {
      await kv.set([...p, "t"], "the prefix key itself");
      for (const n of [1, 2, 3, 4, 5]) await kv.set([...p, "t", n], n);
      await kv.set([...p, "u", 1], "beside");
      const t = [...p, "t"];
      assertEquals(await keysOf(kv, { prefix: t }), [1, 2, 3, 4, 5].map((n) => [...t, n]));
      assertEquals(await keysOf(kv, { start: [...t, 2], end: [...t, 4] }), [[...t, 2], [...t, 3]]);
      assertEquals(await keysOf(kv, { prefix: t, start: [...t, 4] }), [[...t, 4], [...t, 5]]);
      assertEquals(await keysOf(kv, { prefix: t, end: [...t, 2] }), [[...t, 1]]);
    },
  ],

  ["reverse lists from the end; limit stops after that many", async (kv, p) => {
    for (const n of [1, 2, 3, 4, 5]) await kv.set([...p, n], n);
    const all = [1, 2, 3, 4, 5].map((n) => [...p, n]);
    assertEquals(await keysOf(kv, { prefix: p }, { reverse: true }), all.toReversed());
    assertEquals(await keysOf(kv, { prefix: p }, { limit: 2 }), all.slice(0, 2));
    assertEquals(await keysOf(kv, { prefix: p }, { limit: 2, reverse: true }), [all[4], all[3]]);
    assertEquals(
      await keysOf(kv, { start: all[1], end: all[4] }, { reverse: true, limit: 2 }),
      [all[3], all[2]],
    );
  }],

  ["a cursor resumes where a page ended, forwards and in reverse", async (kv, p) => {
    const all = Array.from({ length: 7 }, (_, n) => [...p, n]);
    for (const key of all) await kv.set(key, 1);
    for (const reverse of [false, true]) {
      const expected = reverse ? all.toReversed() : all;
      const pages: Deno.KvKey[][] = [];
      let cursor: string | undefined;
      do {
        const listing = kv.list({ prefix: p }, { limit: 3, reverse, cursor });
        const page = (await Array.fromAsync(listing)).map((entry) => entry.key);
        pages.push(page);
        cursor = page.length === 3 ? listing.cursor : undefined;
      } while (cursor);
      assertEquals(pages.flat(), expected, reverse ? "reverse" : "forwards");
      assertEquals(pages.map((page) => page.length), [3, 3, 1]);
    }
    const first = kv.list({ start: all[1], end: all[6] }, { limit: 2 });
    await Array.fromAsync(first);
    assertEquals(await keysOf(kv, { start: all[1], end: all[6] }, { cursor: first.cursor }), [
      all[3],
      all[4],
      all[5],
    ]);
  }],

  ["batchSize changes how a list is fetched, not what it gives", async (kv, p) => {
    const all = Array.from({ length: 12 }, (_, n) => [...p, n]);
    for (const key of all) await kv.set(key, 1);
    assertEquals(await keysOf(kv, { prefix: p }, { batchSize: 5 }), all);
    assertEquals(
      await keysOf(kv, { prefix: p }, { batchSize: 5, reverse: true }),
      all.toReversed(),
    );
    assertEquals(await keysOf(kv, { prefix: p }, { batchSize: 5, limit: 7 }), all.slice(0, 7));
  }],

  [
    "a cursor that cannot be read, or is outside the list, throws the TypeError the routes name",
    async (kv, p) => {
      // routes/admin/shared.ts turns these messages into 400s (core/kv/list_options.ts cursorRefusal).
      for (const n of [1, 2, 3, 4, 5, 6]) await kv.set([...p, "m", n], n);
      const invalid = await Array.fromAsync(kv.list({ prefix: p }, { cursor: "not a cursor!" }))
        .then(() => undefined, (error) => error);
      assertOk(
        invalid instanceof TypeError && /invalid cursor/i.test(invalid.message),
        `${invalid}`,
      );
      const page = kv.list({ prefix: [...p, "m"] }, { limit: 5 });
      await Array.fromAsync(page);
      const outside = await Array.fromAsync(
        kv.list({ start: [...p, "m", 1], end: [...p, "m", 3] }, { cursor: page.cursor }),
      ).then(() => undefined, (error) => error);
      assertOk(
        outside instanceof TypeError && /cursor out of bounds/i.test(outside.message),
        `${outside}`,
      );
    },
  ],

  ["of commits racing with a check on one key's versionstamp, exactly one wins", async (kv, p) => {
    await kv.set([...p, "wallet"], 100);
    const read = await kv.get([...p, "wallet"]);
    const results = await Promise.all(
      Array.from(
        { length: 8 },
        (_, i) =>
          kv.atomic().check(read).set([...p, "wallet"], 100 - i - 1).set([...p, "entry", i], i)
            .commit(),
      ),
    );
    const winners = results.flatMap((result, i) => result.ok ? [i] : []);
    assertEquals(winners.length, 1, "exactly one commit wins");
    assertEquals((await kv.get([...p, "wallet"])).value, 100 - winners[0] - 1);
    assertEquals((await keysOf(kv, { prefix: [...p, "entry"] })).length, 1, "only its entry");
  }],

  ["of commits racing to create one absent key (check null), exactly one wins", async (kv, p) => {
    const results = await Promise.all(
      Array.from(
        { length: 8 },
        (_, i) =>
          kv.atomic().check({ key: [...p, "once"], versionstamp: null }).set([...p, "once"], i)
            .commit(),
      ),
    );
    const winners = results.flatMap((result, i) => result.ok ? [i] : []);
    assertEquals(winners.length, 1, "exactly one commit wins");
    assertEquals((await kv.get([...p, "once"])).value, winners[0]);
  }],

  ["commits creating distinct absent keys at once (each checked null) all win", async (kv, p) => {
    // As keys are created from several instances: each commit checks and writes its own two
    // keys, neighbours in the store's order, so none may fail for another's.
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => {
        const id = [...p, "key", i];
        const byHash = [...p, "hash", `h${i}`];
        return kv.atomic()
          .check({ key: id, versionstamp: null })
          .check({ key: byHash, versionstamp: null })
          .set(id, { n: i })
          .set(byHash, i)
          .commit();
      }),
    );
    assertEquals(results.filter((result) => !result.ok).length, 0, "no commit refused");
    assertEquals((await keysOf(kv, { prefix: [...p, "key"] })).length, 40);
  }],

  ["concurrent sums on one counter all count, from absent", async (kv, p) => {
    const results = await Promise.all(
      Array.from({ length: 40 }, () => kv.atomic().sum([...p, "n"], 3n).commit()),
    );
    assertOk(results.every((result) => result.ok), "a sum without checks always commits");
    assertEquals((await kv.get([...p, "n"])).value, new Deno.KvU64(120n));
  }],

  ["mutations of one commit apply in order: set, then sum, then delete", async (kv, p) => {
    const result = await kv.atomic().set([...p, "n"], new Deno.KvU64(1n)).sum([...p, "n"], 2n)
      .set([...p, "gone"], 1).delete([...p, "gone"]).commit();
    assertOk(result.ok);
    assertEquals((await kv.get([...p, "n"])).value, new Deno.KvU64(3n));
    assertEquals((await kv.get([...p, "gone"])).versionstamp, null);
  }],

  ["a list's cursor stops where the page stopped, inside a batch too", async (kv, p) => {
    const all = Array.from({ length: 10 }, (_, n) => [...p, n]);
    for (const key of all) await kv.set(key, 1);
    for (const reverse of [false, true]) {
      const first = kv.list({ prefix: p }, { limit: 4, batchSize: 6, reverse });
      const page = (await Array.fromAsync(first)).map((entry) => entry.key);
      const rest = await keysOf(kv, { prefix: p }, { cursor: first.cursor, reverse });
      const expected = reverse ? all.toReversed() : all;
      assertEquals([...page, ...rest], expected, reverse ? "reverse" : "forwards");
    }
    const done = kv.list({ prefix: p });
    await Array.fromAsync(done);
    assertEquals(done.cursor, "", "a list read to its end has an empty cursor");
  }],

  ["values of every kind the stores write round-trip inside objects", async (kv, p) => {
    const value = {
      at: new Date(1_700_000_000_000),
      bytes: new Uint8Array([0, 9, 255]),
      big: 2n ** 70n,
      missing: undefined,
      list: [null, -0.5, "x", { deep: [true] }],
      text: "ü € 𝄞",
    };
    await kv.set([...p, "v"], value);
    assertEquals((await kv.get([...p, "v"])).value, value);
  }],

  ["getMany takes 10 keys and refuses 11", async (kv, p) => {
    const keys = (n: number) => Array.from({ length: n }, (_, i) => [...p, i]);
    assertEquals((await kv.getMany(keys(10))).length, 10);
    await rejects(() => kv.getMany(keys(11)), "getMany of 11 keys");
  }],

  ["a commit takes 1,000 mutations and refuses 1,001", async (kv, p) => {
    const writeMany = (n: number) => {
      const atomic = kv.atomic();
      for (let i = 0; i < n; i++) atomic.set([...p, i], i);
      return atomic.commit();
    };
    assertOk((await writeMany(1_000)).ok);
    await rejects(() => writeMany(1_001), "a commit of 1,001 mutations");
    assertEquals((await kv.get([...p, 1_000])).versionstamp, null);
  }],

  ["a commit takes the media store's 12 chunks of 60,000 bytes", async (kv, p) => {
    const atomic = kv.atomic();
    for (let i = 0; i < 12; i++) atomic.set([...p, i], new Uint8Array(60_000).fill(i));
    assertOk((await atomic.commit()).ok);
    assertEquals((await kv.get<Uint8Array>([...p, 11])).value?.[59_999], 11);
  }],

  [`a value of ${VALUE_LIMIT} bytes is stored; one byte more throws`, async (kv, p) => {
    await kv.set([...p, "v"], new Uint8Array(VALUE_LIMIT).fill(7));
    assertEquals((await kv.get<Uint8Array>([...p, "v"])).value?.length, VALUE_LIMIT);
    const tooLarge = new Uint8Array(VALUE_LIMIT + 1);
    await rejects(() => kv.set([...p, "w"], tooLarge), "set of a too large value");
    await rejects(() => kv.atomic().set([...p, "w"], tooLarge).commit(), "commit of one");
    assertEquals((await kv.get([...p, "w"])).versionstamp, null);
  }],

  [`a key of ${KEY_LIMIT} bytes is written; one byte more throws`, async (kv, p) => {
    const largest = keyOfSize(p, KEY_LIMIT);
    await kv.set(largest, 1);
    assertEquals((await kv.get(largest)).value, 1);
    const tooLarge = keyOfSize(p, KEY_LIMIT + 1);
    await rejects(() => kv.set(tooLarge, 1), "set of a too large key");
    await rejects(() => kv.atomic().set(tooLarge, 1).commit(), "commit of one");
  }],
];

const QUEUE_RULES: [string, Rule][] = [
  ["a value enqueued in a commit reaches listenQueue", async (kv, p) => {
    const received = Promise.withResolvers<unknown>();
    const listening = kv.listenQueue((message) => received.resolve(message));
    try {
      const message = { wake: "tasks", test: p.at(-1) };
      assertOk((await kv.atomic().set([...p, "task"], 1).enqueue(message).commit()).ok);
      assertEquals(await received.promise, message);
    } finally {
      kv.close();
      await listening;
    }
  }],
];
