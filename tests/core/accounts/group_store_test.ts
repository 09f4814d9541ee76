import { assertEquals, assertRejects } from "../../helpers/assert.ts";
import { GroupStore } from "../../../core/accounts/group_store.ts";

/** Two instances' group stores on one KV file. */
async function withTwoStores(fn: (a: GroupStore, b: GroupStore) => Promise<void>) {
  const dir = await Deno.makeTempDir();
  const kvA = await Deno.openKv(`${dir}/gateway.kv`);
  const kvB = await Deno.openKv(`${dir}/gateway.kv`);
  try {
    const a = new GroupStore(kvA);
    const b = new GroupStore(kvB);
    await a.reload();
    await b.reload();
    await fn(a, b);
  } finally {
    kvA.close();
    kvB.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("GroupStore: a group without a record is ×1; a record's multiplier in ten-thousandths", async () => {
  await withTwoStores(async (a) => {
    assertEquals(a.tierOf("vip"), { group: "vip", multiplier: 10_000 });
    await a.put("vip", { description: "", price_multiplier: 0.8 });
    assertEquals(a.tierOf("vip"), { group: "vip", multiplier: 8_000 });
    await a.put("vip", { description: "", price_multiplier: 1.1 });
    assertEquals(a.tierOf("vip").multiplier, 11_000);
    await a.delete("vip");
    assertEquals(a.tierOf("vip").multiplier, 10_000);
    await assertRejects(() => a.get("vip"));
  });
});

Deno.test("GroupStore: another instance prices from its snapshot until it reloads (every 2 s)", async () => {
  await withTwoStores(async (a, b) => {
    await a.put("reseller", { description: "", price_multiplier: 0.6 });
    assertEquals(b.tierOf("reseller").multiplier, 10_000);
    await b.reload();
    assertEquals(b.tierOf("reseller").multiplier, 6_000);
    assertEquals(b.list().map((group) => group.name), ["reseller"]);
  });
});
