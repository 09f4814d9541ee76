import { assertEquals } from "../../helpers/assert.ts";
import { countingKv } from "../../../core/kv/counting_kv.ts";

Deno.test("countingKv reports each operation and still performs it", async () => {
  const seen: string[] = [];
  const kv = countingKv(await Deno.openKv(":memory:"), (name) => seen.push(name));
  try {
    await kv.set(["a"], 1);
    assertEquals((await kv.get<number>(["a"])).value, 1);
    await kv.getMany([["a"], ["b"]]);
    const result = await kv.atomic().check({ key: ["a"], versionstamp: null }).set(["a"], 2)
      .commit();
    assertEquals(result.ok, false);
    for await (const _ of kv.list({ prefix: [] })) break;
    await kv.delete(["a"]);
    assertEquals(seen, [
      "set",
      "get",
      "getMany",
      "atomic.check",
      "atomic.set",
      "commit",
      "list",
      "delete",
    ]);
  } finally {
    kv.close();
  }
});
