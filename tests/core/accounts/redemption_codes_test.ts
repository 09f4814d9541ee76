import { assertEquals, assertRejects } from "../../helpers/assert.ts";
import { Ledger } from "../../../core/billing/ledger.ts";
import { GatewayError } from "../../../core/errors.ts";
import { RedemptionStore } from "../../../core/accounts/redemption_store.ts";
import { RedemptionCodes } from "../../../core/accounts/redemption_codes.ts";
import { codesCsv } from "../../../core/accounts/redemption_csv.ts";

/** Two gateways on one KV file: each its own handle, ledger and redemption service. */
async function withTwoInstances(
  fn: (a: RedemptionCodes, b: RedemptionCodes, ledger: Ledger) => Promise<void>,
) {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/gateway.kv`;
  const kvA = await Deno.openKv(path);
  const kvB = await Deno.openKv(path);
  try {
    const ledgerA = new Ledger(kvA);
    const a = new RedemptionCodes(new RedemptionStore(kvA), ledgerA, {
      throttle: { threshold: 1_000 },
    });
    const b = new RedemptionCodes(new RedemptionStore(kvB), new Ledger(kvB), {
      throttle: { threshold: 1_000 },
    });
    await fn(a, b, ledgerA);
  } finally {
    kvA.close();
    kvB.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const redeemer = { accountId: "acct_a", walletId: "key_wallet_a", group: "default" };

async function errorCode(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (error) {
    if (error instanceof GatewayError) return `${error.status} ${error.code}`;
    throw error;
  }
  return "ok";
}

Deno.test("100 concurrent redemptions of one code on two instances credit it exactly once", async () => {
  await withTwoInstances(async (a, b, ledger) => {
    const { codes } = await a.store.createBatch({ name: "launch", amount: 5_000, count: 1 });
    const code = codes[0].code;
    const outcomes = await Promise.all(
      Array.from({ length: 100 }, (_, i) => errorCode((i % 2 ? a : b).redeem(code, redeemer))),
    );
    assertEquals(outcomes.filter((outcome) => outcome === "ok").length, 1);
    assertEquals(outcomes.filter((outcome) => outcome === "409 code_redeemed").length, 99);
    assertEquals(await ledger.balance(redeemer.walletId), 5_000);
    const { data } = await ledger.list(redeemer.walletId, { limit: 100, order: "asc" });
    assertEquals(data.length, 1);
    assertEquals(data[0].type, "credit");
    assertEquals(data[0].amount, 5_000);
    assertEquals(data[0].ref, `redeem:${codes[0].id}`);
    assertEquals(data[0].note?.includes("launch"), true);
    assertEquals(data[0].note?.includes(codes[0].id), true);
    const view = await a.store.code(codes[0].id);
    assertEquals(view.state, "redeemed");
    assertEquals(view.redeemed_by, "acct_a");
  });
});

Deno.test("Redeeming: unknown, malformed, disabled, expired and other-group codes are refused", async () => {
  await withTwoInstances(async (a, _b, ledger) => {
    assertEquals(
      await errorCode(a.redeem("gwr-" + "x".repeat(24), redeemer)),
      "404 code_not_found",
    );
    assertEquals(await errorCode(a.redeem("not a code", redeemer)), "404 code_not_found");

    const batch = await a.store.createBatch({ name: "two", amount: 10, count: 2 });
    await a.store.disableCode(batch.codes[0].id);
    assertEquals(await errorCode(a.redeem(batch.codes[0].code, redeemer)), "409 code_disabled");
    await a.store.disableBatch(batch.batch.id);
    assertEquals(await errorCode(a.redeem(batch.codes[1].code, redeemer)), "409 code_disabled");

    const soon = new Date(Date.now() + 60_000).toISOString();
    const expiring = await a.store.createBatch({
      name: "exp",
      amount: 10,
      count: 1,
      expires_at: soon,
    });
    assertEquals(
      await errorCode(a.redeem(expiring.codes[0].code, redeemer, Date.now() + 120_000)),
      "410 code_expired",
    );
    assertEquals((await a.store.code(expiring.codes[0].id, Date.now() + 120_000)).state, "expired");

    const vip = await a.store.createBatch({ name: "vip", amount: 10, count: 1, group: "vip" });
    assertEquals(await errorCode(a.redeem(vip.codes[0].code, redeemer)), "403 code_not_for_group");
    const ok = await a.redeem(vip.codes[0].code, { ...redeemer, group: "vip" });
    assertEquals(ok.amount, 10);
    assertEquals(await errorCode(a.store.disableCode(vip.codes[0].id)), "409 code_redeemed");
    assertEquals(await ledger.balance(redeemer.walletId), 10);
  });
});

Deno.test("Redeeming: ten failures a minute make the redeemer wait (429), others are not slowed", async () => {
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/gateway.kv`);
  try {
    const codes = new RedemptionCodes(new RedemptionStore(kv), new Ledger(kv));
    const { codes: [good] } = await codes.store.createBatch({ name: "g", amount: 1, count: 1 });
    for (let i = 0; i < 10; i++) {
      assertEquals(
        await errorCode(codes.redeem(`gwr-${"a".repeat(23)}${i}`, redeemer)),
        "404 code_not_found",
      );
    }
    assertEquals(
      await errorCode(codes.redeem(good.code, redeemer)),
      "429 too_many_redemption_attempts",
    );
    const other = { accountId: "acct_b", walletId: "key_wallet_b", group: "default" };
    assertEquals(await errorCode(codes.redeem(good.code, other)), "ok");
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("A batch's CSV lists each code's state, never the code", async () => {
  await withTwoInstances(async (a) => {
    const { batch, codes } = await a.store.createBatch({ name: "csv", amount: 7, count: 3 });
    await a.redeem(codes[0].code, redeemer);
    await a.store.disableCode(codes[1].id);
    const { data } = await a.store.codes(batch.id);
    const csv = codesCsv(data);
    const lines = csv.trimEnd().split("\r\n");
    assertEquals(lines[0], "id,state,redeemed_by,redeemed_at");
    assertEquals(lines.length, 4);
    const byId = new Map(lines.slice(1).map((line) => [line.split(",")[0], line.split(",")]));
    assertEquals(byId.get(codes[0].id)![1], "redeemed");
    assertEquals(byId.get(codes[0].id)![2], "acct_a");
    assertEquals(byId.get(codes[1].id)![1], "disabled");
    assertEquals(byId.get(codes[2].id)!.slice(1), ["unused", "", ""]);
    for (const { code } of codes) assertEquals(csv.includes(code), false);
    const summary = await a.store.summary(batch.id);
    assertEquals(summary.states, { unused: 1, redeemed: 1, disabled: 1, expired: 0 });
  });
});

Deno.test("A disable racing a redemption on another instance: the code's state and the money agree", async () => {
  await withTwoInstances(async (a, b, ledger) => {
    const { batch, codes } = await a.store.createBatch({ name: "race", amount: 3, count: 1 });
    const [redeemed] = await Promise.all([
      errorCode(b.redeem(codes[0].code, redeemer)),
      a.store.disableBatch(batch.id),
    ]);
    const state = (await a.store.code(codes[0].id)).state;
    // Either order is possible; the code's state and the money agree.
    assertEquals(redeemed === "ok" ? "redeemed" : "disabled", state);
    assertEquals(await ledger.balance(redeemer.walletId), redeemed === "ok" ? 3 : 0);
    await assertRejects(() => b.redeem(codes[0].code, redeemer));
  });
});

Deno.test("A batch of 1,000 codes is written in several commits; every code is there once and redeems", async () => {
  await withTwoInstances(async (a, b, ledger) => {
    const { batch, codes } = await a.store.createBatch({ name: "big", amount: 1, count: 1000 });
    assertEquals(new Set(codes.map((code) => code.code)).size, 1000);
    assertEquals((await a.store.summary(batch.id)).states.unused, 1000);
    const page = await a.store.codes(batch.id, { limit: 600 });
    const rest = await a.store.codes(batch.id, { limit: 600, after: page.cursor! });
    assertEquals([page.data.length, rest.data.length, rest.cursor], [600, 400, null]);
    await b.redeem(codes[999].code, redeemer);
    assertEquals(await ledger.balance(redeemer.walletId), 1);
  });
});
