import { logEntry } from "../../helpers/request_log_entry.ts";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { RequestLog } from "../../../core/telemetry/request_log.ts";
import { sweepRequestLog } from "../../../core/telemetry/request_log_retention.ts";
import { SCAN_LIMIT } from "../../../core/telemetry/request_log_query.ts";
import { taskEndedRecord } from "../../../core/telemetry/task_end_record.ts";
import { kvKeys } from "../../../core/kv/kv_keys.ts";

const entry = logEntry;

async function countKeys(kv: Deno.Kv, prefix: Deno.KvKey): Promise<number> {
  let count = 0;
  for await (const _ of kv.list({ prefix })) count++;
  return count;
}

const HOUR = 3_600_000;
const wholeRange = () => ({ from: Date.now() - HOUR, to: Date.now() + HOUR });

Deno.test("RequestLog: a batch's key, channel and model index groups are written with it and swept with it", async () => {
  using kv = await Deno.openKv(":memory:");
  const log = new RequestLog(kv, { stdout: false });
  log.record(entry());
  log.record(entry({ channel_id: null }));
  await log.flush();
  // One key group and one model group name both records; the channel has one record.
  assertEquals(await countKeys(kv, ["requests_by"]), 1 + 1 + 1);
  assertEquals(await sweepRequestLog(kv, 0, { now: Date.now() + 1000 }), 2);
  assertEquals(await countKeys(kv, ["requests_by"]), 0);
  assertEquals(await countKeys(kv, kvKeys.requestLogs()), 0);
});

Deno.test("RequestLog: the sweep deletes the status and interface indexes older records have", async () => {
  using kv = await Deno.openKv(":memory:");
  const old = entry();
  await kv.atomic()
    .set(kvKeys.requestLog(old.id), old)
    .set(kvKeys.requestBy("status", "2xx", old.id), 200)
    .set(kvKeys.requestBy("interface", "openai", old.id), 200)
    .set(kvKeys.requestBy("key", "key_a", old.id), 200)
    .commit();
  assertEquals(await sweepRequestLog(kv, 0, { now: Date.now() + 1000 }), 1);
  assertEquals(await countKeys(kv, ["requests_by"]), 0);
});

Deno.test("RequestLog.list(): status and interface filters, alone or beside an indexed one", async () => {
  using kv = await Deno.openKv(":memory:");
  const log = new RequestLog(kv, { stdout: false });
  const records = [
    entry({ status: 200 }),
    entry({ status: 502, key_id: "key_b" }),
    entry({ status: 404, interface: "anthropic" }),
    entry({ status: 429, key_id: "key_b", interface: "gemini" }),
  ];
  for (const record of records) log.record(record);
  await log.flush();
  const ids = async (filter: Record<string, string>) =>
    (await log.list({ limit: 10, order: "asc" }, filter)).data.map((found) =>
      records.indexOf(
        records.find((record) => record.id === found.id)!,
      )
    );
  assertEquals(await ids({ status: "5xx" }), [1]);
  assertEquals(await ids({ status: "404" }), [2]);
  assertEquals(await ids({ interface: "gemini" }), [3]);
  assertEquals(await ids({ key: "key_b", status: "4xx" }), [3]);
  assertEquals(await ids({ key: "key_b", status: "502" }), [1]);
  assertEquals(await ids({ key: "key_a", interface: "anthropic" }), [2]);
  assertEquals(await ids({ model: "m", status: "2xx" }), [0]);
});

Deno.test("RequestLog.list(): a page reads at most SCAN_LIMIT keys and returns a cursor to go on", async () => {
  using kv = await Deno.openKv(":memory:");
  const log = new RequestLog(kv, { stdout: false });
  const rare = entry({ status: 404 });
  log.record(rare);
  for (let i = 0; i < SCAN_LIMIT + 10; i++) log.record(entry({ status: 400 }));
  await log.flush();
  const first = await log.list({ limit: 10, order: "desc" }, { status: "404" });
  assertEquals(first.data, []);
  assertOk(first.cursor, "a cursor to go on");
  const second = await log.list({ limit: 10, order: "desc", cursor: first.cursor! }, {
    status: "404",
  });
  assertEquals(second.data.map((record) => record.id), [rare.id]);
  assertEquals(second.cursor, null);
});

Deno.test("RequestLog.amend(): a task's record counts in the usage once, when its task ended", async () => {
  using kv = await Deno.openKv(":memory:");
  const log = new RequestLog(kv, { stdout: false });
  const submitted = entry({
    channel_id: null,
    cost: 0,
    input_tokens: 0,
    cached_input_tokens: 0,
    output_tokens: 0,
    task_id: "task_1",
    task_pending: true,
    receipt: {
      kind: "video",
      units: { output_seconds: 5, reference_seconds: [] },
      prices: { per_second: 100 },
      multipliers: {},
      formula: "ceil(100 × (5000 ms output) / 1000) = 500",
      amount: 500,
      charged: 500,
      status: "held",
      held: 500,
      refunded: 0,
      ledger_entry_ids: ["le_hold"],
    },
  });
  log.record(submitted);
  await log.flush();
  const query = { ...wholeRange(), interval: "hour" as const, groupBy: [] };
  assertEquals(await log.usage(query), []);
  const end = {
    status: "succeeded" as const,
    channelId: "ch_video",
    held: 500,
    entry: { id: "le_settle", amount: 0 },
    billedSeconds: 5,
  };
  await log.amend(submitted.id, (record) => taskEndedRecord(record, end));
  await log.amend(submitted.id, (record) => taskEndedRecord(record, end));
  const [row] = await log.usage({ ...query, groupBy: ["channel"] });
  assertEquals([row.requests, row.cost, row.seconds, row.channel_id], [1, 500, 5, "ch_video"]);
  const record = await log.get(submitted.id);
  assertEquals(record?.receipt?.ledger_entry_ids, ["le_hold", "le_settle"]);
  assertEquals([record?.cost, record?.task_pending], [500, undefined]);
  const byChannel = await log.list({ limit: 10, order: "desc" }, { channel: "ch_video" });
  assertEquals(byChannel.data.map((found) => found.id), [submitted.id]);
});

Deno.test("RequestLog: records are stored in the compact form and read as entries; object records still read", async () => {
  using kv = await Deno.openKv(":memory:");
  const log = new RequestLog(kv, { stdout: false });
  const written = entry({
    upstream_attempts: [{ channel_id: "ch_1", url: null, outcome: "ok", latency_ms: 1 }],
  });
  const old = entry({ key_id: "key_old" });
  await kv.set(kvKeys.requestLog(old.id), old);
  log.record(written);
  await log.flush();
  assertOk(Array.isArray((await kv.get(kvKeys.requestLog(written.id))).value));
  assertEquals(await log.get(written.id), written);
  assertEquals(await log.get(old.id), old);
  const listed = await log.list({ limit: 10, order: "asc", ...wholeRange() });
  assertEquals(listed.data.map((record) => record.id).sort(), [old.id, written.id].sort());
  assertEquals(
    (await log.list({ limit: 10, order: "desc", ...wholeRange() }, { key: "key_a" })).data,
    [written],
  );
  assertEquals(
    await log.list({ limit: 10, order: "desc", ...wholeRange() }, { request_id: old.id }),
    {
      data: [old],
      cursor: null,
    },
  );
});
