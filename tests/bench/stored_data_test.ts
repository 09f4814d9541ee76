import { assertEquals, assertOk, assertThrows } from "../helpers/assert.ts";
import { rangesOf, seedStoredData, storedLogRecord } from "../../bench/stored_data.ts";
import { boundEntry } from "../../core/telemetry/request_log.ts";
import { kvKeys } from "../../core/kv/kv_keys.ts";

Deno.test("rangesOf() cuts a total into ranges of at most the size", () => {
  assertEquals(rangesOf(5, 2), [[0, 2], [2, 4], [4, 5]]);
  assertEquals(rangesOf(0, 10), []);
  assertThrows(() => rangesOf(5, 0));
});

Deno.test("storedLogRecord() is a request-log entry the log keeps whole", () => {
  const record = storedLogRecord(7, { keyIds: ["key_a", "key_b"], channelId: "ch_1", model: "m" });
  assertEquals(record.key_id, "key_b");
  assertEquals(boundEntry(record).truncated, undefined);
  assertEquals(storedLogRecord(50, { keyIds: ["k"], channelId: "c", model: "m" }).status, 502);
});

Deno.test("seedStoredData() writes keys, channels, tasks and request-log records with their indexes", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/stored.kv`;
    await seedStoredData(path, { keys: 3, channels: 2, tasks: 4, records: 30 });
    const kv = await Deno.openKv(path);
    try {
      const count = async (prefix: Deno.KvKey) => {
        let n = 0;
        for await (const _ of kv.list({ prefix })) n++;
        return n;
      };
      assertEquals(await count(kvKeys.apiKeys() as unknown as Deno.KvKey), 3);
      assertEquals(await count(kvKeys.channels() as unknown as Deno.KvKey), 2);
      assertEquals(await count(kvKeys.tasks() as unknown as Deno.KvKey), 4);
      assertEquals(await count(kvKeys.requestLogs() as unknown as Deno.KvKey), 30);
      assertOk(await count(["usage"]) > 0);
    } finally {
      kv.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
