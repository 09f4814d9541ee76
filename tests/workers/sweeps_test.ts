/**
 * The sweeps that run on a timer in a long-lived process and by Deno.cron on Deploy: each does
 * its work once however many instances run it at the same moment on one KV.
 */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { captureConsoleError } from "../helpers/console_capture.ts";
import { openStore, serverTest, startTestGateway } from "../helpers/gateway.ts";
import { type TaskRecord, writeTask } from "../../core/tasks/task_record.ts";
import { kvKeys } from "../../core/kv/kv_keys.ts";
import { MediaStore } from "../../core/media/media_store.ts";
import { sweepExpiredMedia } from "../../core/media/media_expiry.ts";
import { sweepRequestLog } from "../../core/telemetry/request_log_retention.ts";
import { TaskWorker } from "../../workers/task_worker.ts";
import { CRON_SCHEDULES, type Sweep, SweepLoop } from "../../workers/sweeps.ts";
import type { KvBackend } from "../../core/kv/kv_backend.ts";

const DAY = 86_400_000;
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function countKeys(kv: KvBackend, prefix: Deno.KvKey): Promise<number> {
  let count = 0;
  for await (const _ of kv.list({ prefix })) count++;
  return count;
}

function dueTask(id: string): TaskRecord {
  return {
    id,
    kind: "video",
    action: "generations",
    owner: "key:k",
    key_id: "k",
    model: "vid-2",
    status: "submitted",
    progress: "20%",
    submit_time: Math.floor(Date.now() / 1000),
    start_time: null,
    finish_time: null,
    attempts: 0,
    held: 0,
    cost: null,
    fail_reason: null,
    channel_id: null,
    result_url: null,
    image_urls: null,
    next_check_at: Date.now(),
    lease_owner: null,
    lease_until: null,
    input: {},
  };
}

Deno.test(
  "due-task sweep: what is due runs once however many workers sweep at once, and is awaited",
  serverTest,
  async () => {
    // The gateway's own worker looks once an hour here, so only the sweeps below run the tasks.
    await using gw = await startTestGateway({ GATEWAY_TASK_POLL_MS: "3600000" });
    const gateway = gw.running.gateway;
    const ids = ["task_sweep_a", "task_sweep_b", "task_sweep_c"];
    for (const id of ids) {
      await writeTask(gateway.kv.atomic(), { previous: null, next: dueTask(id) }).commit();
    }
    const runs: string[] = [];
    const finished: string[] = [];
    const kind = {
      run: async (_: unknown, run: { task: TaskRecord }) => {
        runs.push(run.task.id);
        await delay(30);
        finished.push(run.task.id);
      },
    };
    const options = { leaseMs: 60_000, pollMs: 3_600_000, concurrency: 8, useQueue: false };
    const workers = [1, 2, 3].map(() => new TaskWorker(gateway, { video: kind }, options));
    const started = await Promise.all(workers.map((worker) => worker.sweepDue()));
    assertEquals(started.reduce((sum, n) => sum + n, 0), 3);
    assertEquals(runs.sort(), ids);
    assertEquals(finished.sort(), ids, "sweepDue returned before its runs ended");
    assertEquals(await workers[0].sweepDue(), 0, "nothing is due any more");
  },
);

Deno.test(
  "media expiry sweep: expired objects go, record and chunks; live ones stay; two instances at once",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const kv = gw.running.gateway.kv;
    const media = gw.running.gateway.media;
    // A real MP4's head (the store sniffs it), padded to three chunks.
    const mp4 = await Deno.readFile(new URL("../fixtures/media/mp4_3s.mp4", import.meta.url));
    const big = new Uint8Array(Math.max(150_000, mp4.length + 1)).fill(7);
    big.set(mp4);
    const soon = await Promise.all(
      [1, 2, 3].map(() =>
        media.put(big, { contentType: "video/mp4", owner: "gateway", ttlMs: 60_000 })
      ),
    );
    const later = await media.put(big, {
      contentType: "video/mp4",
      owner: "gateway",
      ttlMs: 3 * DAY,
    });
    // A second instance on the same KV file.
    using other = await openStore(gw.kvPath);
    const otherMedia = new MediaStore(other, 60_000);
    const now = Date.now() + 120_000;
    const deleted = await Promise.all([
      sweepExpiredMedia(kv, media, { now }),
      sweepExpiredMedia(other, otherMedia, { now }),
    ]);
    assertOk(deleted[0] + deleted[1] >= 3, `deleted ${deleted}`);
    for (const record of soon) {
      assertEquals(await media.get(record.id), null);
      assertEquals(await countKeys(kv, ["media_chunk", record.id]), 0);
    }
    assertEquals((await media.get(later.id))?.id, later.id);
    assertEquals(await countKeys(kv, ["media_chunk", later.id]), 3);
    assertEquals(await sweepExpiredMedia(kv, media, { now }), 0, "a second sweep finds nothing");
  },
);

Deno.test(
  "request-log retention sweep: records past the period go, newer stay; two instances at once",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const kv = gw.running.gateway.kv;
    const now = Date.now();
    const idAt = (ms: number, n: number) =>
      `req_${ms.toString(36).padStart(9, "0")}${n.toString(36).padStart(4, "0")}abcdefgh`;
    const old = [10, 9, 8].map((days, n) => idAt(now - days * DAY, n));
    const recent = [6, 1].map((days, n) => idAt(now - days * DAY, n));
    for (const id of [...old, ...recent]) {
      await kv.set(kvKeys.requestLog(id), { id, at: new Date(now).toISOString() });
    }
    using other = await openStore(gw.kvPath);
    const deleted = await Promise.all([
      sweepRequestLog(kv, 7 * DAY, { now }),
      sweepRequestLog(other, 7 * DAY, { now }),
    ]);
    assertOk(deleted[0] + deleted[1] >= 3, `deleted ${deleted}`);
    const left: string[] = [];
    for await (const entry of kv.list({ prefix: kvKeys.requestLogs() })) {
      left.push(String(entry.key[1]));
    }
    for (const id of old) assertOk(!left.includes(id), `${id} is still there`);
    for (const id of recent) assertOk(left.includes(id), `${id} was deleted`);
    assertEquals(await sweepRequestLog(kv, 7 * DAY, { now }), 0);
  },
);

Deno.test("SweepLoop: each sweep on its interval, never two runs of one at once; stop waits", async () => {
  let running = 0;
  let most = 0;
  let runs = 0;
  let failures = 0;
  const slow: Sweep = {
    name: "media-expiry",
    everyMs: 10,
    run: async () => {
      running++;
      most = Math.max(most, running);
      await delay(40);
      running--;
      runs++;
      return 0;
    },
  };
  const failing: Sweep = {
    name: "request-log-retention",
    everyMs: 15,
    run: () => {
      failures++;
      return Promise.reject(new Error("kv unreachable"));
    },
  };
  const notOnTheLoop: Sweep = { name: "due-tasks", everyMs: null, run: () => Promise.resolve(0) };
  const loop = new SweepLoop([slow, failing, notOnTheLoop]);
  const { lines } = await captureConsoleError(async () => {
    loop.start();
    await delay(200);
    await loop.stop();
  });
  assertEquals(running, 0, "stop returned while a sweep ran");
  assertEquals(most, 1);
  assertOk(runs >= 2, `${runs} runs`);
  assertOk(failures >= 2, `${failures} failures`);
  assertOk(
    lines.every((line) => JSON.parse(line).msg === "sweep failed") && lines.length === failures,
    lines.join("\n"),
  );
  const after = runs;
  await delay(50);
  assertEquals(runs, after, "a sweep ran after stop");
});

Deno.test("cron schedules: one a minute at most, for every sweep", () => {
  assertEquals(Object.keys(CRON_SCHEDULES).sort(), [
    "channel-recovery",
    "due-tasks",
    "due-webhooks",
    "media-expiry",
    "orphaned-holds",
    "request-log-retention",
  ]);
  for (const schedule of Object.values(CRON_SCHEDULES)) {
    assertEquals(schedule.split(" ").length, 5, schedule);
  }
  assertEquals(CRON_SCHEDULES["due-tasks"], "* * * * *");
});
