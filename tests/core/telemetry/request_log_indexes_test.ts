import { logEntry } from "../../helpers/request_log_entry.ts";
import { assertEquals } from "../../helpers/assert.ts";
import { RequestLog } from "../../../core/telemetry/request_log.ts";
import {
  GROUP_SPAN_MS,
  indexGroupsOf,
  membersOf,
} from "../../../core/telemetry/request_log_indexes.ts";
import { sweepRequestLog } from "../../../core/telemetry/request_log_retention.ts";
import { SCAN_LIMIT } from "../../../core/telemetry/request_log_query.ts";
import { kvKeys } from "../../../core/kv/kv_keys.ts";
import { cursorRefusal } from "../../../core/kv/list_options.ts";

const entry = logEntry;

/** An id made `ms` ago (the log's ids are time-ordered). */
function idMsAgo(ms: number): string {
  return `req_${(Date.now() - ms).toString(36).padStart(9, "0")}0000abcdefgh`;
}

/** Every page of `filter`, `limit` at a time. */
async function allPages(
  log: RequestLog,
  options: { limit: number; order: "asc" | "desc"; since?: number; until?: number },
  filter: Record<string, string>,
): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = await log.list({ ...options, cursor }, filter);
    pages.push(page.data.map((record) => record.id));
    cursor = page.cursor ?? undefined;
  } while (cursor);
  return pages;
}

Deno.test("indexGroupsOf(): one entry per field and value, a record alone and a task's record keep their own", () => {
  const a = entry();
  const b = entry({ status: 502 });
  const task = entry({ task_pending: true });
  const other = entry({ key_id: "key_b" });
  const written = indexGroupsOf([a, b, task, other]);
  const keyIndex = written.filter((index) => index.key[1] === "key");
  assertEquals(keyIndex.map((index) => index.key), [
    kvKeys.requestBy("key", "key_a", task.id),
    kvKeys.requestBy("key", "key_a", b.id),
    kvKeys.requestBy("key", "key_b", other.id),
  ]);
  assertEquals(keyIndex.map((index) => index.value), [200, `${a.id}:200,${b.id}:502`, 200]);
  assertEquals(membersOf(keyIndex[1].key, keyIndex[1].value), [
    { id: a.id, status: 200 },
    { id: b.id, status: 502 },
  ]);
  assertEquals(membersOf(keyIndex[0].key, keyIndex[0].value), [{ id: task.id, status: 200 }]);
});

Deno.test("indexGroupsOf(): ids further apart than GROUP_SPAN_MS are in separate groups", () => {
  const old = entry({ id: idMsAgo(GROUP_SPAN_MS * 3) });
  const olderStill = entry({ id: idMsAgo(GROUP_SPAN_MS * 3 + 10) });
  const recent = entry({ id: idMsAgo(10) });
  const keyIndex = indexGroupsOf([recent, old, olderStill]).filter((index) =>
    index.key[1] === "key"
  );
  assertEquals(keyIndex.map((index) => index.key.at(-1)), [recent.id, old.id]);
  assertEquals(keyIndex[1].value, `${olderStill.id}:200,${old.id}:200`);
});

Deno.test("RequestLog.list(): pages through index groups in order, each record once, both ways", async () => {
  using kv = await Deno.openKv(":memory:");
  const log = new RequestLog(kv, { stdout: false });
  const ids: string[] = [];
  for (let batch = 0; batch < 3; batch++) {
    for (let i = 0; i < 9; i++) {
      const record = entry({ status: i % 3 === 0 ? 404 : 200 });
      ids.push(record.id);
      log.record(record);
      log.record(entry({ key_id: "key_other" }));
    }
    await log.flush();
  }
  const desc = await allPages(log, { limit: 4, order: "desc" }, { key: "key_a" });
  assertEquals(desc.flat(), ids.toReversed());
  assertEquals(desc.slice(0, -1).every((page) => page.length === 4), true);
  assertEquals((await allPages(log, { limit: 5, order: "asc" }, { key: "key_a" })).flat(), ids);
  const notFound = ids.filter((_, i) => i % 3 === 0);
  assertEquals(
    (await allPages(log, { limit: 2, order: "asc" }, { key: "key_a", status: "404" })).flat(),
    notFound,
  );
});

Deno.test("RequestLog.list(): since/until pick a group's members exactly", async () => {
  using kv = await Deno.openKv(":memory:");
  const log = new RequestLog(kv, { stdout: false });
  const ids = [idMsAgo(5_000), idMsAgo(3_000), idMsAgo(1_000)];
  for (const id of ids) log.record(entry({ id }));
  await log.flush();
  const now = Date.now();
  const page = await log.list(
    { limit: 10, order: "desc", since: now - 4_000, until: now - 2_000 },
    {
      key: "key_a",
    },
  );
  assertEquals(page.data.map((record) => record.id), [ids[1]]);
});

Deno.test("RequestLog.list(): a page stops inside a group at SCAN_LIMIT members and goes on from there", async () => {
  using kv = await Deno.openKv(":memory:");
  const log = new RequestLog(kv, { stdout: false });
  const rare = entry({ status: 404 });
  log.record(rare);
  for (let i = 0; i < SCAN_LIMIT + 10; i++) log.record(entry({ status: 400 }));
  await log.flush();
  const pages = await allPages(log, { limit: 10, order: "desc" }, { key: "key_a", status: "404" });
  assertEquals(pages[0], []);
  assertEquals(pages.flat(), [rare.id]);
});

Deno.test("RequestLog.list(): records and indexes written before index groups are read with the new ones and swept", async () => {
  using kv = await Deno.openKv(":memory:");
  const log = new RequestLog(kv, { stdout: false });
  const old = entry();
  await kv.atomic()
    .set(kvKeys.requestLog(old.id), old)
    .set(kvKeys.requestBy("key", "key_a", old.id), 200)
    .set(kvKeys.requestBy("model", "m", old.id), 200)
    .commit();
  const fresh = [entry(), entry()];
  for (const record of fresh) log.record(record);
  await log.flush();
  const listed = await log.list({ limit: 10, order: "asc" }, { key: "key_a" });
  assertEquals(listed.data.map((record) => record.id), [old.id, ...fresh.map((r) => r.id)]);
  assertEquals(await sweepRequestLog(kv, 0, { now: Date.now() + 1000 }), 3);
  let left = 0;
  for await (const _ of kv.list({ prefix: ["requests_by"] })) left++;
  assertEquals(left, 0);
});

Deno.test("RequestLog.list(): a record written after newer ones (a long request) still comes in id order", async () => {
  using kv = await Deno.openKv(":memory:");
  const log = new RequestLog(kv, { stdout: false });
  const [long, quick, late, newest] = [4_000, 3_000, 2_000, 1_000].map((ms) =>
    entry({ id: idMsAgo(ms) })
  );
  log.record(quick);
  log.record(late);
  await log.flush();
  log.record(newest);
  log.record(long);
  await log.flush();
  const ids = [long, quick, late, newest].map((record) => record.id);
  for (const limit of [1, 2, 10]) {
    assertEquals(
      (await allPages(log, { limit, order: "desc" }, { key: "key_a" })).flat(),
      ids.toReversed(),
    );
    assertEquals((await allPages(log, { limit, order: "asc" }, { key: "key_a" })).flat(), ids);
  }
  const now = Date.now();
  const ranged = await allPages(log, {
    limit: 1,
    order: "desc",
    since: now - 3_500,
    until: now - 1_500,
  }, { model: "m" });
  assertEquals(ranged.flat(), [late.id, quick.id]);
});

Deno.test("RequestLog.list(): a cursor of the log walk on an index walk (or back) is refused as KV refuses a bad cursor", async () => {
  using kv = await Deno.openKv(":memory:");
  const log = new RequestLog(kv, { stdout: false });
  for (let i = 0; i < 3; i++) log.record(entry());
  await log.flush();
  const logCursor = (await log.list({ limit: 1, order: "desc" })).cursor!;
  const indexCursor = (await log.list({ limit: 1, order: "desc" }, { key: "key_a" })).cursor!;
  for (
    const [cursor, filter] of [[logCursor, { key: "key_a" }], [indexCursor, {}]] as const
  ) {
    const refused = await log.list({ limit: 1, order: "desc", cursor }, filter).then(
      () => undefined,
      (error) => error,
    );
    assertEquals(cursorRefusal(refused), "is not a cursor this API gave");
  }
});
