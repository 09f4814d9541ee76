/**
 * Spend caps and tokens per minute in the ledger: held in the hold's commit, exact when two
 * ledgers (two instances) on one KV file hold at once, settled to the real amount.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { Ledger } from "../../../core/billing/ledger.ts";
import { GatewayError } from "../../../core/errors.ts";

async function withTwoLedgers(fn: (ledgers: [Ledger, Ledger]) => Promise<void>) {
  const dir = await Deno.makeTempDir();
  const first = await Deno.openKv(`${dir}/ledger.kv`);
  const second = await Deno.openKv(`${dir}/ledger.kv`);
  try {
    await fn([new Ledger(first), new Ledger(second)]);
  } finally {
    first.close();
    second.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Waits out the last seconds of a UTC minute, so a burst counts in one minute. */
async function awayFromMinuteEnd(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 10_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

const unlimited = { unlimited: true, credit_limit: 0 };

Deno.test("Ledger.hold() with a daily cap admits exactly what fits across two ledgers", async () => {
  await withTwoLedgers(async (ledgers) => {
    const caps = { spend_limits: { day: 555 } };
    const outcomes = await Promise.allSettled(
      Array.from(
        { length: 100 },
        (_, i) => ledgers[i % 2].hold("k", { limit: unlimited, ref: `r${i}`, amount: 10, caps }),
      ),
    );
    const admitted = outcomes.filter((outcome) => outcome.status === "fulfilled").length;
    assertEquals(admitted, 55);
    for (const outcome of outcomes) {
      if (outcome.status === "fulfilled") continue;
      assertOk(outcome.reason instanceof GatewayError);
      assertEquals([outcome.reason.status, outcome.reason.code], [402, "spend_limit_exceeded"]);
    }
    assertEquals((await ledgers[0].periodSpend(["k"])).get("k")!.day, 550);

    // Settles replace the holds with the real cost; releases give them back.
    const held = outcomes.flatMap((outcome, i) => outcome.status === "fulfilled" ? [`r${i}`] : []);
    await Promise.all(
      held.map((ref, i) =>
        i % 2
          ? ledgers[i % 2].settle("k", { limit: unlimited, ref, cost: 4 })
          : ledgers[i % 2].release("k", { ref })
      ),
    );
    const settled = held.filter((_, i) => i % 2).length;
    const spend = (await ledgers[1].periodSpend(["k"])).get("k")!;
    assertEquals(spend, { day: settled * 4, week: settled * 4, month: settled * 4 });
    assertEquals(await ledgers[0].balance("k"), -settled * 4);
  });
});

Deno.test("Ledger.hold() with tpm admits exactly the tokens that fit in the minute", async () => {
  await awayFromMinuteEnd();
  await withTwoLedgers(async (ledgers) => {
    const caps = { tpm: 1_000 };
    const outcomes = await Promise.allSettled(
      Array.from(
        { length: 100 },
        (_, i) =>
          ledgers[i % 2].hold("k", { limit: unlimited, ref: `r${i}`, amount: 1, caps, tokens: 30 }),
      ),
    );
    const admitted = outcomes.flatMap((outcome, i) =>
      outcome.status === "fulfilled" ? [`r${i}`] : []
    );
    assertEquals(admitted.length, 33);
    const refused = outcomes.find((outcome) => outcome.status === "rejected");
    assertEquals((refused as PromiseRejectedResult).reason.code, "tpm_limit_exceeded");
    assertEquals((refused as PromiseRejectedResult).reason.status, 429);

    // Settling to 10 tokens each frees 20 per request: 33 × 20 = 660 tokens, 22 more requests.
    for (const ref of admitted) {
      await ledgers[0].settle("k", { limit: unlimited, ref, cost: 1, tokens: 10 });
    }
    const more = await Promise.allSettled(
      Array.from(
        { length: 40 },
        (_, i) =>
          ledgers[i % 2].hold("k", { limit: unlimited, ref: `s${i}`, amount: 1, caps, tokens: 30 }),
      ),
    );
    assertEquals(more.filter((outcome) => outcome.status === "fulfilled").length, 22);
  });
});

Deno.test("Ledger.hold() refuses a request over the cap on its own, naming the remedy", async () => {
  await withTwoLedgers(async ([ledger]) => {
    await ledger.credit("k", 1_000);
    const error = await ledger.hold("k", {
      limit: { unlimited: false, credit_limit: 0 },
      ref: "r",
      amount: 200,
      caps: { spend_limits: { week: 100 } },
      remedy: "lower max_tokens",
    }).catch((error) => error);
    assertEquals(error.code, "spend_limit_exceeded");
    assertOk(error.message.includes("Weekly spend limit of 100 units"), error.message);
    assertOk(error.message.includes("lower max_tokens"), error.message);
    assertEquals(await ledger.balance("k"), 1_000);
  });
});
