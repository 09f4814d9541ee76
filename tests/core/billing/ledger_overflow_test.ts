import { assertEquals } from "../../helpers/assert.ts";
import { Ledger, MAX_BALANCE } from "../../../core/billing/ledger.ts";
import { GatewayError } from "../../../core/errors.ts";

async function withLedger(fn: (ledger: Ledger) => Promise<void>) {
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/ledger.kv`);
  try {
    await fn(new Ledger(kv));
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
}

async function refusal(fn: () => Promise<unknown>): Promise<GatewayError | undefined> {
  try {
    await fn();
  } catch (error) {
    return error as GatewayError;
  }
}

async function entries(ledger: Ledger, keyId: string) {
  return (await ledger.list(keyId, { limit: 1000, order: "asc" })).data;
}

Deno.test("Ledger.credit() refuses to take a balance past ±MAX_SAFE_INTEGER; nothing is written", async () => {
  await withLedger(async (ledger) => {
    await ledger.credit("k", MAX_BALANCE);
    const over = await refusal(() => ledger.credit("k", 1));
    assertEquals([over?.status, over?.code], [409, "balance_overflow"]);
    assertEquals(await ledger.balance("k"), MAX_BALANCE);
    assertEquals((await entries(ledger, "k")).length, 1);

    await ledger.credit("k", -MAX_BALANCE);
    await ledger.credit("k", -MAX_BALANCE);
    assertEquals(await ledger.balance("k"), -MAX_BALANCE);
    const under = await refusal(() => ledger.credit("k", -1));
    assertEquals([under?.status, under?.code], [409, "balance_overflow"]);
    assertEquals(await ledger.balance("k"), -MAX_BALANCE);
    const sum = (await entries(ledger, "k")).reduce((total, entry) => total + entry.amount, 0);
    assertEquals(sum, -MAX_BALANCE);
  });
});

Deno.test("Ledger.credit() refuses amounts that are not safe integers", async () => {
  await withLedger(async (ledger) => {
    for (const amount of [MAX_BALANCE + 1, 1.5, Infinity, NaN, -(2 ** 60)]) {
      const error = await refusal(() => ledger.credit("k", amount));
      assertEquals([error?.status, error?.code], [400, "invalid_amount"], String(amount));
    }
    assertEquals(await entries(ledger, "k"), []);
  });
});

Deno.test("Ledger.credit(): a refused credit with a ref leaves the ref unused", async () => {
  await withLedger(async (ledger) => {
    await ledger.credit("k", MAX_BALANCE - 10);
    const over = await refusal(() => ledger.credit("k", 11, { ref: "invoice-1" }));
    assertEquals(over?.code, "balance_overflow");
    await ledger.credit("k", -100);
    const entry = await ledger.credit("k", 11, { ref: "invoice-1" });
    assertEquals(entry.balance_after, MAX_BALANCE - 99);
  });
});

Deno.test("Ledger.credit(): a batch with a refused credit still commits the others", async () => {
  await withLedger(async (ledger) => {
    await ledger.credit("k", MAX_BALANCE - 5);
    const results = await Promise.allSettled([
      ledger.credit("k", 3),
      ledger.credit("k", 10),
      ledger.credit("k", 2),
    ]);
    assertEquals(results.map((result) => result.status), ["fulfilled", "rejected", "fulfilled"]);
    assertEquals(await ledger.balance("k"), MAX_BALANCE);
  });
});
