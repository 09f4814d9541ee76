import { assertNothingCharged } from "./assert_money.ts";
import { assertOk } from "./assert.ts";
import { serverTest, startTestGateway } from "./gateway.ts";
import { Ledger } from "../../core/billing/ledger.ts";

/** The message assertNothingCharged fails with, or null when it passes. */
function failure(promise: Promise<void>): Promise<string | null> {
  return promise.then(() => null, (error) => String(error.message));
}

Deno.test(
  "assertNothingCharged: an open hold fails it even when the balance is back where it began",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const { id } = await gw.createKey({ balance: 1_000 });
    const s = { gw, keyId: id };
    assertOk(await failure(assertNothingCharged(s, 1_000, { untouched: true })) === null);
    using kv = await Deno.openKv(gw.kvPath);
    const ledger = new Ledger(kv);
    await ledger.hold(id, {
      limit: { unlimited: false, credit_limit: 0 },
      ref: "req_left_open",
      amount: 100,
    });
    await ledger.credit(id, 100, { note: "hides the hold from the balance" });
    const open = await failure(assertNothingCharged(s, 1_000));
    assertOk(open?.includes("holds left open: req_left_open"), `${open}`);

    await ledger.release(id, { ref: "req_left_open" });
    assertOk(await failure(assertNothingCharged(s, 1_100)) === null);
    const moved = await failure(assertNothingCharged(s, 1_100, { untouched: true }));
    assertOk(moved?.includes("entries other than credits"), `${moved}`);
    const balance = await failure(assertNothingCharged(s, 1_000));
    assertOk(balance?.includes("balance 1100, expected the opening 1000"), `${balance}`);
  },
);
