/**
 * Video task lifecycle: refunds exactly once (upstream failure, refusal, timeout, a process killed
 * between the upstream's answer and the refund, two processes on one KV), passing faults, many
 * tasks polled at once, and chaining to another gateway.
 */

import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest, startTestGateway } from "../helpers/gateway.ts";
import { type GatewayProcess, spawnGateway } from "../helpers/gateway_process.ts";
import { tempDir } from "../helpers/temp_dir.ts";
import { mediaFixtures } from "../helpers/media_tools.ts";
import { solidPng } from "../helpers/png_fixtures.ts";
import {
  adminOf,
  FAST_VIDEO_ENV,
  moneyMoves,
  PER_SECOND,
  PER_TASK,
  provisionVideo,
  setupVideo,
  videoClient,
  type VideoSetup,
} from "../helpers/video_setup.ts";
import { startArkVideoUpstream } from "../upstream/ark_video.ts";

const fixtures = mediaFixtures();
const FIVE_SECONDS = 5 * PER_SECOND;

async function submitId(response: Response): Promise<string> {
  const body = await response.json();
  assertEquals(response.status, 200, JSON.stringify(body));
  return body.id;
}

Deno.test(
  "video task: an upstream failure is FAILURE with its reason, refunded in full once",
  serverTest,
  async () => {
    await using s = await setupVideo({ ark: { plan: () => ({ outcome: "failed" }) } });
    const id = await submitId(await s.submit({ model: "vid-2", prompt: "doomed" }));
    const task = await s.waitForTask(id);
    assertEquals(task.status, "FAILURE");
    assertOk(
      task.fail_reason?.includes("OutputVideoSensitiveContentDetected"),
      task.fail_reason!,
    );
    assertEquals(task.result_url, null);
    assertEquals(task.cost_units, 0);
    assertEquals(await moneyMoves(s), [["hold", -FIVE_SECONDS], ["release", FIVE_SECONDS]]);
    await assertNothingCharged(s, 100_000_000);
  },
);

Deno.test(
  "video task: a submission the upstream refuses fails at once and is refunded",
  serverTest,
  async () => {
    await using s = await setupVideo();
    s.ark.faults.push({ on: "create", kind: "status", status: 400, code: "InvalidParameter" });
    const id = await submitId(await s.submit({ model: "vid-2", prompt: "refused" }));
    const task = await s.waitForTask(id);
    assertEquals(task.status, "FAILURE");
    assertOk(task.fail_reason?.startsWith("submission failed"), task.fail_reason!);
    assertEquals(s.ark.creates, 1);
    assertEquals(await moneyMoves(s), [["hold", -FIVE_SECONDS], ["release", FIVE_SECONDS]]);
  },
);

Deno.test(
  "video task: passing faults on submit and poll are retried; billed once",
  serverTest,
  async () => {
    await using s = await setupVideo();
    s.ark.faults.push(
      { on: "create", kind: "status", status: 503 },
      { on: "poll", kind: "status", status: 500 },
      { on: "poll", kind: "malformed" },
      { on: "poll", kind: "status", status: 429 },
    );
    const id = await submitId(await s.submit({ model: "vid-2", prompt: "bumpy" }));
    const task = await s.waitForTask(id);
    assertEquals(task.status, "SUCCESS");
    assertEquals(s.ark.tasks.size, 1);
    assertEquals(await moneyMoves(s), [["hold", -FIVE_SECONDS], ["settle", 0]]);
  },
);

Deno.test(
  "video task: vid-2-cheap failures follow the model's refund policy",
  serverTest,
  async () => {
    for (const [percent, kept] of [[undefined, 0], [0, PER_TASK], [50, PER_TASK / 2]] as const) {
      const cheapPrice = percent === undefined
        ? { per_task: PER_TASK }
        : { per_task: PER_TASK, failure_refund_percent: percent };
      await using s = await setupVideo({
        cheapPrice,
        ark: { plan: () => ({ outcome: "failed" }) },
      });
      const id = await submitId(await s.submit({ model: "vid-2-cheap", prompt: "cheap fail" }));
      assertEquals((await s.waitForTask(id)).status, "FAILURE");
      assertEquals(await s.gw.assertLedgerInvariant(s.keyId), 100_000_000 - kept, `${percent}`);
      assertEquals((await moneyMoves(s)).length, 2);
    }
  },
);

Deno.test("video task: a task past the timeout fails and is refunded", serverTest, async () => {
  await using s = await setupVideo({
    env: { GATEWAY_VIDEO_TIMEOUT_MINUTES: "0.01" },
    ark: { plan: () => ({ runningPolls: 1_000_000 }) },
  });
  const id = await submitId(await s.submit({ model: "vid-2", prompt: "forever" }));
  const task = await s.waitForTask(id);
  assertEquals(task.status, "FAILURE");
  assertOk(task.fail_reason?.includes("timed out"), task.fail_reason!);
  assertEquals(await moneyMoves(s), [["hold", -FIVE_SECONDS], ["release", FIVE_SECONDS]]);
});

Deno.test(
  "video task: 150 tasks are polled side by side, each settled once",
  serverTest,
  async () => {
    await using s = await setupVideo({ ark: { pollDelayMs: 30 } });
    const ids = await Promise.all(
      Array.from({ length: 150 }, (_, i) => s.submit({ model: "vid-2", prompt: `clip ${i}` })),
    ).then((answers) => Promise.all(answers.map(submitId)));
    for (const id of ids) assertEquals((await s.waitForTask(id)).status, "SUCCESS");
    assertOk(s.ark.maxConcurrentPolls >= 10, `max concurrent polls ${s.ark.maxConcurrentPolls}`);
    const moves = await moneyMoves(s);
    assertEquals(moves.filter(([type]) => type === "hold").length, 150);
    assertEquals(moves.filter(([type]) => type === "settle").length, 150);
    assertEquals(await s.gw.assertLedgerInvariant(s.keyId), 100_000_000 - 150 * FIVE_SECONDS);
  },
);

/** A front gateway whose vid-2 goes to the setup's gateway through a `gateway-video` channel. */
async function chainedFront(s: VideoSetup, perSecond: number) {
  const front = await startTestGateway(FAST_VIDEO_ENV);
  await front.putModel("vid-2", { kind: "video", price: { per_second: perSecond } });
  await front.addChannel({
    name: "next gateway",
    type: "gateway-video",
    base_url: `${s.gw.url}/v1`,
    keys: [s.key],
    models: ["vid-2"],
  });
  const { id, key } = await front.createKey({ balance: 50_000_000 });
  return {
    front,
    frontKeyId: id,
    client: videoClient(front.url, key),
    [Symbol.asyncDispose]: front.close,
  };
}

async function crashScenario(crashAt: string) {
  await using ark = startArkVideoUpstream({
    plan: () => ({ queuedPolls: 0, runningPolls: 0, outcome: "failed" }),
  });
  await using dir = await tempDir();
  const env = {
    ...FAST_VIDEO_ENV,
    GATEWAY_KV: `${dir.path}/g.kv`,
    GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
    GATEWAY_TASK_LEASE_MS: "1000",
    GATEWAY_LOG_REQUESTS: "0",
  };
  await using crashing = await spawnGateway({ ...env, GATEWAY_CRASH_AT: crashAt });
  let gateway: GatewayProcess = crashing;
  const admin = adminOf(gateway.url, ADMIN_TOKEN);
  const { keyId, key } = await provisionVideo(admin, ark.baseUrl);
  const id = await submitId(
    await videoClient(gateway.url, key).submit({ model: "vid-2", prompt: "crash" }),
  );
  const status = await gateway.child.status;
  assertEquals(status.signal, "SIGKILL", "the process died at the crash point");
  const pollsBefore = ark.pollRequests;

  await using restarted = await spawnGateway(env);
  gateway = restarted;
  const client = videoClient(gateway.url, key);
  const task = await client.waitForTask(id);
  assertEquals(task.status, "FAILURE");
  const ledger = await adminOf(gateway.url, ADMIN_TOKEN)(
    "GET",
    `/admin/ledger?key=${keyId}&order=asc`,
  );
  const moves = ledger.data.map((entry: { type: string; amount: number }) => [
    entry.type,
    entry.amount,
  ]);
  assertEquals(moves, [["credit", 100_000_000], ["hold", -FIVE_SECONDS], [
    "release",
    FIVE_SECONDS,
  ]]);
  const key_ = await adminOf(gateway.url, ADMIN_TOKEN)("GET", `/admin/keys/${keyId}`);
  assertEquals(key_.balance, 100_000_000);
  return { pollsBefore, pollsAfter: ark.pollRequests };
}

Deno.test(
  "video task: killed between the upstream's FAILURE and the refund, refunded once after restart",
  serverTest,
  async () => {
    const { pollsBefore, pollsAfter } = await crashScenario("video.before_end");
    assertOk(pollsAfter > pollsBefore, "the restarted process polled the task again");
  },
);

Deno.test(
  "video task: killed right after the refund, the restart refunds nothing more",
  serverTest,
  async () => {
    const { pollsBefore, pollsAfter } = await crashScenario("video.after_end");
    assertEquals(pollsAfter, pollsBefore, "a finished task is not polled again");
  },
);

Deno.test(
  "video task: two gateway processes on one KV refund each failed task once",
  serverTest,
  async () => {
    await using ark = startArkVideoUpstream({
      plan: () => ({ queuedPolls: 1, runningPolls: 2, outcome: "failed" }),
    });
    await using dir = await tempDir();
    const env = {
      ...FAST_VIDEO_ENV,
      GATEWAY_KV: `${dir.path}/g.kv`,
      GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
      GATEWAY_LOG_REQUESTS: "0",
      GATEWAY_VIDEO_POLL_MIN_MS: "5",
      GATEWAY_VIDEO_POLL_MAX_MS: "10",
      GATEWAY_TASK_POLL_MS: "5",
    };
    await using first = await spawnGateway(env);
    await using second = await spawnGateway(env);
    const { keyId, key } = await provisionVideo(adminOf(first.url, ADMIN_TOKEN), ark.baseUrl);
    // The second process sees the new channel at its next catalog refresh.
    for (let i = 0; i < 200; i++) {
      const models = await fetch(`${second.url}/v1/models`, {
        headers: { authorization: `Bearer ${key}` },
      }).then((response) => response.json());
      if (models.data?.some((model: { id: string }) => model.id === "vid-2")) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const ids = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        videoClient(i % 2 ? first.url : second.url, key)
          .submit({ model: "vid-2", prompt: `twin ${i}` })
          .then(submitId)),
    );
    const client = videoClient(first.url, key);
    for (const id of ids) assertEquals((await client.waitForTask(id)).status, "FAILURE");
    const ledger = await adminOf(first.url, ADMIN_TOKEN)(
      "GET",
      `/admin/ledger?key=${keyId}&order=asc&limit=1000`,
    );
    const entries = ledger.data as Array<{ type: string; ref: string }>;
    for (const id of ids) {
      const types = entries.filter((entry) => entry.ref === id).map((entry) => entry.type);
      assertEquals(types, ["hold", "release"], id);
    }
    assertEquals(ark.tasks.size, 30, "each task submitted upstream once");
    const balance = (await adminOf(first.url, ADMIN_TOKEN)("GET", `/admin/keys/${keyId}`)).balance;
    assertEquals(balance, 100_000_000);
  },
);

Deno.test(
  "video task: chained to another gateway (gateway-video), references re-sent, billed on both",
  serverTest,
  async () => {
    await using s = await setupVideo();
    await using chained = await chainedFront(s, 2 * PER_SECOND);
    const { front, frontKeyId, client } = chained;
    const response = await client.submit({ model: "vid-2", prompt: "chained", duration: "4" }, [
      { field: "image_1", bytes: solidPng(8, 8, [0, 0, 255, 255]) },
      { field: "video", bytes: fixtures.mp4_3s },
    ]);
    assertEquals(response.headers.get("x-gateway-billed-seconds"), "7");
    const task = await client.waitForTask(await submitId(response));
    assertEquals(task.status, "SUCCESS");
    assertOk(task.result_url?.startsWith(s.ark.origin), task.result_url!);
    const [upstream] = [...s.ark.tasks.values()];
    assertEquals(upstream.references[1].bytes, fixtures.mp4_3s);
    assertEquals(await front.assertLedgerInvariant(frontKeyId), 50_000_000 - 7 * 2 * PER_SECOND);
    assertEquals(await s.gw.assertLedgerInvariant(s.keyId), 100_000_000 - 7 * PER_SECOND);
  },
);

Deno.test(
  "video task: a FAILURE on the next gateway is a refunded FAILURE here",
  serverTest,
  async () => {
    await using s = await setupVideo({ ark: { plan: () => ({ outcome: "failed" }) } });
    await using chained = await chainedFront(s, PER_SECOND);
    const { front, frontKeyId, client } = chained;
    const task = await client.waitForTask(
      await submitId(await client.submit({ model: "vid-2", prompt: "chained failure" })),
    );
    assertEquals(task.status, "FAILURE");
    assertOk(task.fail_reason?.includes("upstream"), task.fail_reason!);
    await assertNothingCharged({ gw: front, keyId: frontKeyId }, 50_000_000);
    await assertNothingCharged(s, 100_000_000);
  },
);
