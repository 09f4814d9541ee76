/**
 * Two instances on one wallet: once one sees the other's write on the balance, it reads the
 * balance before each commit, as the other must, instead of committing on its cached balance one
 * round trip ahead and winning every race (the starvation bench/fairness.ts measures).
 */

import { assertEquals } from "../../helpers/assert.ts";
import { type BillableKey, Ledger } from "../../../core/billing/ledger.ts";

const key: BillableKey = { id: "k", unlimited: false, credit_limit: 0 };

/** `kv`, counting its reads of balances. */
function countingBalanceReads(kv: Deno.Kv): { kv: Deno.Kv; reads: () => number } {
  let reads = 0;
  const counted = new Proxy(kv, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property === "get") {
        return (key: Deno.KvKey) => {
          if (key[0] === "balances") reads++;
          return target.get(key);
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { kv: counted, reads: () => reads };
}

Deno.test("Ledger: after another instance's write, each commit reads the balance first", async () => {
  const dir = await Deno.makeTempDir();
  const kvA = await Deno.openKv(`${dir}/ledger.kv`);
  const kvB = await Deno.openKv(`${dir}/ledger.kv`);
  const counted = countingBalanceReads(kvA);
  const a = new Ledger(counted.kv, { instanceId: "inst_a" });
  const b = new Ledger(kvB, { instanceId: "inst_b" });
  try {
    await a.credit("k", 1_000);
    await a.hold("k", { limit: key, ref: "r1", amount: 10 });
    let before = counted.reads();
    await a.hold("k", { limit: key, ref: "r2", amount: 10 });
    assertEquals(counted.reads() - before, 0, "alone, a commit plans on the cached balance");

    await b.credit("k", 5);
    // Planned on the cached balance, this commit fails its check and reads the balance again.
    await a.hold("k", { limit: key, ref: "r3", amount: 10 });
    before = counted.reads();
    await a.hold("k", { limit: key, ref: "r4", amount: 10 });
    assertEquals(counted.reads() - before, 1, "contended, a commit reads the balance first");
    assertEquals(await a.balance("k"), 1_005 - 40);
  } finally {
    kvA.close();
    kvB.close();
    await Deno.remove(dir, { recursive: true });
  }
});
