import { assertEquals } from "../../helpers/assert.ts";
import { Ledger } from "../../../core/billing/ledger.ts";
import { RequestBill } from "../../../core/billing/request_bill.ts";
import { settleAndLog } from "../../../core/billing/settle_and_log.ts";
import { embeddingReceipt, type Receipt } from "../../../core/billing/receipt.ts";
import type { KvAtomic, KvBackend } from "../../../core/kv/kv_backend.ts";

/** A real KV file whose next `failures.left` commits throw, as a store gone for a moment. */
function withFailingCommits(kv: Deno.Kv, failures: { left: number }): KvBackend {
  return new Proxy(kv, {
    get(target, name) {
      if (name !== "atomic") {
        const value = Reflect.get(target, name);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return () => {
        const atomic = target.atomic() as unknown as KvAtomic;
        const commit = atomic.commit.bind(atomic);
        atomic.commit = () => {
          if (failures.left <= 0) return commit();
          failures.left--;
          return Promise.reject(new Error("the store is unreachable"));
        };
        return atomic;
      };
    },
  }) as unknown as KvBackend;
}

// 6,000 tokens at 20,000 units per million: 120 units.
const pricing = embeddingReceipt({ input: 20_000 }, 6_000);

async function billed(failures: number) {
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/ledger.kv`);
  const failing = { left: 0 };
  const ledger = new Ledger(withFailingCommits(kv, failing));
  const key = { id: "k", unlimited: false, credit_limit: 0 };
  try {
    await ledger.credit("k", 1_000);
    const bill = new RequestBill(ledger, { key, ref: "req-1", aggregate: false });
    await bill.hold(300);
    await bill.confirmed();
    failing.left = failures;
    const logged: Array<{ cost: number; receipt: Receipt }> = [];
    await settleAndLog(bill, { pricing, log: (entry) => logged.push(entry) });
    return { logged, balance: await ledger.balance("k") };
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("settleAndLog(): the hold settled at the price, logged once with a settled receipt", async () => {
  const { logged, balance } = await billed(0);
  assertEquals(balance, 880);
  assertEquals(logged.length, 1);
  assertEquals(logged[0].cost, 120);
  assertEquals(logged[0].receipt.status, "settled");
  assertEquals(logged[0].receipt.amount, 120);
});

Deno.test("settleAndLog(): a settle the store refuses releases the hold, logged as released", async () => {
  const { logged, balance } = await billed(1);
  // Nothing taken, nothing left held.
  assertEquals(balance, 1_000);
  assertEquals(logged.length, 1);
  assertEquals(logged[0].cost, 0);
  assertEquals(logged[0].receipt.status, "released");
});
