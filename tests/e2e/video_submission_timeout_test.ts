/**
 * A video submission whose answer never came (the channel's timeout passed while the upstream was
 * still making the task) is never submitted twice: not on another channel, not at a later run.
 * Ark has no idempotency key, so the task is held for the operator (`submission_unknown` with
 * `needs_operator`), who attaches the upstream task they find; it is then polled and billed once.
 */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest, startTestGateway } from "../helpers/gateway.ts";
import { consoleClient } from "../helpers/console_client.ts";
import {
  ARK_MODEL,
  FAST_VIDEO_ENV,
  moneyMoves,
  PER_SECOND,
  setupVideo,
  videoClient,
} from "../helpers/video_setup.ts";
import { startArkVideoUpstream } from "../upstream/ark_video.ts";

const MODELS = ["vid-2", "vid-2-480p", "vid-2-1080p", "vid-2-4k", "vid-2-cheap"];

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("the state did not come");
}

Deno.test(
  "video submission: a timed-out create is not submitted twice; held for the operator, then billed once",
  serverTest,
  async () => {
    await using s = await setupVideo({ channel: { timeout_ms: 300, priority: 10 } });
    await using other = startArkVideoUpstream();
    await s.gw.addChannel({
      name: "ark-2",
      type: "ark-video",
      base_url: other.baseUrl,
      keys: ["ark-upstream-test"],
      models: MODELS,
      model_map: { "vid-2": ARK_MODEL },
    });
    s.ark.faults.push({ on: "create", kind: "slow", ms: 1_000 });

    const response = await s.submit({ model: "vid-2", prompt: "a slow start" });
    const submitted = await response.json();
    assertEquals(response.status, 200, JSON.stringify(submitted));
    const id = submitted.id as string;

    const held = await until(
      async () => (await s.gw.admin("GET", `/admin/tasks/${id}`)).body,
      (task) => task.submission_unknown?.needs_operator === true,
    );
    assertEquals(held.submission_unknown.channel_id, held.channel_id);
    assertOk(/no idempotency key/.test(held.submission_unknown.reason), held.submission_unknown);
    // The slow create made its task after the gateway gave up on it.
    await until(() => Promise.resolve(s.ark.tasks.size), (size) => size === 1);
    // Another pass of due work submits nothing: the task is not due until its timeout.
    await s.gw.running.sweeps.find((sweep) => sweep.name === "due-tasks")!.run();
    assertEquals(s.ark.creates, 1, "one create on the first channel");
    assertEquals(other.creates, 0, "never sent to the second channel");
    const { body: seen } = await s.getTask(id);
    assertOk(seen.data.status !== "FAILURE" && seen.data.status !== "SUCCESS", seen.data.status);
    assertEquals(await moneyMoves(s), [["hold", -5 * PER_SECOND]], "held, nothing settled");
    const console = consoleClient(s.gw.url);
    await (await console.signIn(ADMIN_TOKEN)).body?.cancel();
    const detail = await (await console.get(`/console/tasks/${id}`)).text();
    assertOk(detail.includes("Held for the operator"), "the console shows the hold");
    const list = await (await console.get("/console/tasks")).text();
    assertOk(list.includes("held for the operator"), "and the task list");

    // The operator's answers: a bad body is a 400 in the admin envelope; the found task is attached.
    const bad = await s.gw.admin("POST", `/admin/tasks/${id}/resolve`, { upstream_id: "" });
    assertEquals(bad.status, 400, JSON.stringify(bad.body));
    const upstreamId = [...s.ark.tasks.keys()][0];
    const resolved = await s.gw.admin("POST", `/admin/tasks/${id}/resolve`, {
      upstream_id: upstreamId,
    });
    assertEquals(resolved.status, 200, JSON.stringify(resolved.body));
    assertEquals(resolved.body.submission_unknown, null);
    const task = await s.waitForTask(id);
    assertEquals(task.status, "SUCCESS");
    assertEquals(s.ark.creates + other.creates, 1, "submitted once in all");
    assertEquals(await moneyMoves(s), [["hold", -5 * PER_SECOND], ["settle", 0]]);
    const again = await s.gw.admin("POST", `/admin/tasks/${id}/resolve`, { resubmit: true });
    assertEquals(again.status, 409, JSON.stringify(again.body));
    await s.gw.assertLedgerInvariant(s.keyId);
  },
);

/**
 * In front of another gateway: passes every request on, but answers the first submission only
 * after `delayMs` (the next gateway has made the task by then), as a slow link would.
 */
function slowFirstAnswer(target: string, delayMs: number) {
  let submissions = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    const forwarded = await fetch(`${target}${url.pathname}${url.search}`, {
      method: req.method,
      headers: req.headers,
      body: req.body,
    });
    const body = await forwarded.arrayBuffer();
    if (req.method === "POST" && url.pathname.endsWith("/video/generations")) {
      if (++submissions === 1) await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
    return new Response(body, { status: forwarded.status, headers: forwarded.headers });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    submissions: () => submissions,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

Deno.test(
  "video submission: a timed-out create on gateway-video is asked again on the same channel and key, and the next gateway replays its task",
  serverTest,
  async () => {
    await using s = await setupVideo();
    await using link = slowFirstAnswer(s.gw.url, 1_000);
    await using front = await startTestGateway(FAST_VIDEO_ENV);
    await front.putModel("vid-2", { kind: "video", price: { per_second: PER_SECOND } });
    const slow = await front.addChannel({
      name: "next gateway, slow link",
      type: "gateway-video",
      base_url: `${link.url}/v1`,
      keys: [s.key],
      models: ["vid-2"],
      priority: 10,
      timeout_ms: 300,
    });
    // A second way to the same upstream: the retry must not take it.
    await front.addChannel({
      name: "next gateway, direct",
      type: "gateway-video",
      base_url: `${s.gw.url}/v1`,
      keys: [s.key],
      models: ["vid-2"],
    });
    const { id: frontKeyId, key } = await front.createKey({ balance: 50_000_000 });
    const client = videoClient(front.url, key);
    const response = await client.submit({ model: "vid-2", prompt: "once only" });
    const submitted = await response.json();
    assertEquals(response.status, 200, JSON.stringify(submitted));
    const task = await client.waitForTask(submitted.id);
    assertEquals(task.status, "SUCCESS");
    const record = (await front.admin("GET", `/admin/tasks/${submitted.id}`)).body;
    assertEquals(record.channel_id, slow.id, "the same channel was asked again");
    assertEquals(record.submission_unknown, null);
    assertEquals(link.submissions(), 2, "asked twice through the slow link, with one key");
    const next = (await s.gw.admin("GET", "/admin/tasks?kind=video")).body.data;
    assertEquals(next.length, 1, "the next gateway made one task");
    assertEquals(s.ark.creates, 1, "one video upstream");
    assertEquals(await front.assertLedgerInvariant(frontKeyId), 50_000_000 - 5 * PER_SECOND);
  },
);
