import { assertEquals } from "../../helpers/assert.ts";
import {
  accountNames,
  accountSummaries,
  keyNames,
  keySummaries,
} from "../../../core/console/directory.ts";
import { kvKeys } from "../../../core/kv/kv_keys.ts";

function keyRecord(id: string, name: string) {
  return { id, name, prefix: `sk-gw-${id.slice(-4)}`, account_id: "acct_a", enabled: true };
}

Deno.test("directory: names of the ids that exist, in batches past ten; a gone id is absent", async () => {
  using kv = await Deno.openKv(":memory:");
  const ids = Array.from({ length: 23 }, (_, i) => `key_${String(i).padStart(4, "0")}`);
  for (const id of ids) await kv.set(kvKeys.apiKey(id), keyRecord(id, `name-${id}`));
  await kv.set(kvKeys.account("acct_a"), { id: "acct_a", name: "Acme", enabled: true });
  const names = await keyNames(kv, [...ids, "key_gone", ids[0]]);
  assertEquals(names.size, 23);
  assertEquals(names.get("key_0022"), "name-key_0022");
  assertEquals(names.has("key_gone"), false);
  assertEquals([...await accountNames(kv, ["acct_a", "acct_b"])], [["acct_a", "Acme"]]);
});

Deno.test("directory: summaries keep what the match accepts, up to the limit, never the hash", async () => {
  using kv = await Deno.openKv(":memory:");
  for (const [id, name] of [["key_1", "alice"], ["key_2", "bob"], ["key_3", "alice"]]) {
    await kv.set(kvKeys.apiKey(id), { ...keyRecord(id, name), hash: "secret-hash" });
  }
  await kv.set(kvKeys.account("acct_a"), { id: "acct_a", name: "Acme", enabled: false });
  const alices = await keySummaries(kv, { limit: 5, match: (key) => key.name === "alice" });
  assertEquals(alices.map((key) => key.id), ["key_1", "key_3"]);
  assertEquals(Object.keys(alices[0]).sort(), ["account_id", "enabled", "id", "name", "prefix"]);
  assertEquals((await keySummaries(kv, { limit: 2 })).length, 2);
  assertEquals(await accountSummaries(kv, { limit: 5 }), [
    { id: "acct_a", name: "Acme", enabled: false },
  ]);
});
