/** Video generation end to end: billing per second and per task, references, states, owners. */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import { billedSecondsOf, mediaFixtures } from "../helpers/media_tools.ts";
import { solidPng } from "../helpers/png_fixtures.ts";
import {
  ARK_MODEL,
  moneyMoves,
  PER_SECOND,
  PER_TASK,
  setupVideo,
  type VideoSetup,
} from "../helpers/video_setup.ts";

const fixtures = mediaFixtures();
const PNG = solidPng(16, 16, [200, 30, 30, 255]);

async function submitOk(
  s: VideoSetup,
  fields: Record<string, string>,
  files: Parameters<VideoSetup["submit"]>[1] = [],
) {
  const response = await s.submit(fields, files);
  const body = await response.json();
  assertEquals(response.status, 200, JSON.stringify(body));
  assertEquals(body.status, "IN_PROGRESS");
  assertOk(/^task_/.test(body.id));
  return { id: body.id as string, headers: response.headers };
}

/** Submits, waits for SUCCESS, and checks the money: one hold, one settle of `amount`. */
async function expectBilled(
  s: VideoSetup,
  fields: Record<string, string>,
  files: Parameters<VideoSetup["submit"]>[1],
  seconds: number,
) {
  const before = await s.gw.balance(s.keyId);
  const { id, headers } = await submitOk(s, fields, files);
  const amount = Math.ceil(PER_SECOND * seconds);
  assertEquals(headers.get("x-gateway-billing"), "per_second");
  assertEquals(headers.get("x-gateway-billed-seconds"), String(seconds));
  assertEquals(headers.get("x-gateway-cost-units"), String(amount));
  const task = await s.waitForTask(id);
  assertEquals(task.status, "SUCCESS");
  assertEquals(task.billed_seconds, seconds);
  assertEquals(task.cost_units, amount);
  assertEquals(await s.gw.assertLedgerInvariant(s.keyId), before - amount);
  return { id, task };
}

Deno.test(
  "video: text only is billed for duration seconds; states and result",
  serverTest,
  async () => {
    await using s = await setupVideo();
    const { id, task } = await expectBilled(s, { model: "vid-2", prompt: "a red fox" }, [], 5);
    assertEquals(task.progress, "100%");
    assertOk(task.result_url?.endsWith(".mp4"));
    assertEquals(task.data.video_url, task.result_url);
    const video = await fetch(task.result_url!);
    assertEquals(video.status, 200);
    await video.body?.cancel();
    const [upstream] = [...s.ark.tasks.values()];
    assertEquals(upstream.body.model, ARK_MODEL);
    assertEquals(upstream.body.resolution, "720p");
    assertEquals(upstream.body.ratio, "adaptive");
    assertEquals(upstream.body.duration, 5);
    assertEquals(upstream.body.content, [{ type: "text", text: "a red fox" }]);
    assertEquals(await moneyMoves(s), [["hold", -500_000], ["settle", 0]]);
    const again = await s.getTask(id);
    assertEquals(again.body.code, "success");
    assertEquals(again.body.data.task_id, id);
  },
);

Deno.test(
  "video: the query shows QUEUED 20% then IN_PROGRESS 50% as the upstream moves",
  serverTest,
  async () => {
    await using s = await setupVideo({
      ark: { plan: () => ({ queuedPolls: 3, runningPolls: 6 }) },
    });
    const { id } = await submitOk(s, { model: "vid-2", prompt: "waves", duration: "4" });
    const seen = new Set<string>();
    for (let i = 0; i < 400; i++) {
      const { body } = await s.getTask(id);
      seen.add(`${body.data.status} ${body.data.progress}`);
      if (body.data.status === "SUCCESS") break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assertOk(seen.has("QUEUED 20%"), [...seen].join("; "));
    assertOk(seen.has("IN_PROGRESS 50%"), [...seen].join("; "));
    assertOk(seen.has("SUCCESS 100%"), [...seen].join("; "));
  },
);

Deno.test(
  "video: a reference video adds its seconds; the upstream fetches identical bytes",
  serverTest,
  async () => {
    await using s = await setupVideo();
    await expectBilled(s, { model: "vid-2", prompt: "dance like this", duration: "6" }, [
      { field: "video", bytes: fixtures.mp4_3s, filename: "moves.mp4" },
    ], 9);
    const [upstream] = [...s.ark.tasks.values()];
    assertEquals(upstream.references.length, 1);
    assertEquals(upstream.references[0].role, "reference_video");
    assertEquals(upstream.references[0].contentType, "video/mp4");
    assertEquals(upstream.references[0].bytes, fixtures.mp4_3s);
    assertOk(/\/media\/med_[0-9A-Za-z]{32}\.mp4$/.test(upstream.references[0].url));
  },
);

Deno.test(
  "video: reference audio (with an image) adds its seconds, WAV and MP3",
  serverTest,
  async () => {
    await using s = await setupVideo();
    await expectBilled(s, { model: "vid-2", prompt: "sing" }, [
      { field: "image_1", bytes: PNG },
      { field: "audio", bytes: fixtures.wav_2500ms },
    ], 7.5);
    const mp3Seconds = billedSecondsOf("mp3_2s.mp3");
    await expectBilled(s, { model: "vid-2", prompt: "hum" }, [
      { field: "image_1", bytes: PNG },
      { field: "audio", bytes: fixtures.mp3_2s },
    ], 5 + mp3Seconds);
    const roles = [...s.ark.tasks.values()][0].references.map((
      ref,
    ) => [ref.role, ref.contentType]);
    assertEquals(roles, [["reference_image", "image/png"], ["reference_audio", "audio/wav"]]);
  },
);

Deno.test(
  "video: video and audio together, three images, on a resolution model",
  serverTest,
  async () => {
    await using s = await setupVideo();
    await expectBilled(s, {
      model: "vid-2-1080p",
      prompt: "all of it",
      duration: "10",
      ratio: "9:16",
    }, [
      { field: "image_1", bytes: PNG },
      { field: "image_2", bytes: PNG },
      { field: "image_3", bytes: PNG },
      { field: "video", bytes: fixtures.mp4_3s },
      { field: "audio", bytes: fixtures.wav_2500ms },
    ], 15.5);
    const [upstream] = [...s.ark.tasks.values()];
    assertEquals(upstream.body.resolution, "1080p");
    assertEquals(upstream.body.ratio, "9:16");
    assertEquals(upstream.body.model, "vid-2-1080p");
    assertEquals(upstream.references.map((ref) => ref.role), [
      "reference_image",
      "reference_image",
      "reference_image",
      "reference_video",
      "reference_audio",
    ]);
  },
);

Deno.test(
  "video: vid-2-cheap costs one fixed price whatever the seconds, no probing",
  serverTest,
  async () => {
    await using s = await setupVideo({ channel: { video_resolution: "480p" } });
    const before = await s.gw.balance(s.keyId);
    const response = await s.submit({ model: "vid-2-cheap", prompt: "cheap", duration: "15" }, [
      { field: "video", bytes: fixtures.mp4_20s },
    ]);
    assertEquals(response.status, 200);
    assertEquals(response.headers.get("x-gateway-billing"), "per_task");
    assertEquals(response.headers.get("x-gateway-billed-seconds"), null);
    assertEquals(response.headers.get("x-gateway-cost-units"), String(PER_TASK));
    const task = await s.waitForTask((await response.json()).id);
    assertEquals(task.status, "SUCCESS");
    assertEquals(task.billed_seconds, null);
    assertEquals(await s.gw.assertLedgerInvariant(s.keyId), before - PER_TASK);
    const [upstream] = [...s.ark.tasks.values()];
    assertEquals(upstream.body.resolution, "480p");
    assertEquals(upstream.body.ratio, "16:9");
  },
);

Deno.test("video: only keys of the same owner read a task", serverTest, async () => {
  await using s = await setupVideo();
  const { id } = await submitOk(s, { model: "vid-2", prompt: "private" });
  const stranger = await s.gw.createKey({ balance: 0 });
  const teammateA = await s.gw.createKey({ balance: 0, owner: "team-a" });
  const denied = await s.getTask(id, stranger.key);
  assertEquals(denied.status, 404);
  assertEquals(denied.body.error?.code, "task_not_found");
  assertEquals((await s.getTask(id, teammateA.key)).status, 404);
  assertEquals((await s.getTask("task_doesnotexist")).status, 404);
  assertEquals((await s.getTask(id)).status, 200);
});

Deno.test(
  "video: a retried submission with the same Idempotency-Key is one task, one charge",
  serverTest,
  async () => {
    await using s = await setupVideo();
    const headers = { "idempotency-key": "order-42" };
    const fields = { model: "vid-2", prompt: "once" };
    const answers = await Promise.all([1, 2, 3].map(() => s.submit(fields, [], headers)));
    const bodies = await Promise.all(answers.map((answer) => answer.json()));
    assertEquals(answers.map((answer) => answer.status), [200, 200, 200]);
    assertEquals(new Set(bodies.map((body) => body.id)).size, 1);
    assertEquals(answers.filter((a) => a.headers.get("x-gateway-idempotent-replay")).length, 2);
    await s.waitForTask(bodies[0].id);
    const later = await s.submit(fields, [], headers);
    assertEquals((await later.json()).id, bodies[0].id);
    assertEquals(s.ark.creates, 1);
    assertEquals(await moneyMoves(s), [["hold", -500_000], ["settle", 0]]);
    const reused = await s.submit({ ...fields, prompt: "different" }, [], headers);
    assertEquals(reused.status, 409);
    assertEquals((await reused.json()).error.code, "idempotency_key_reused");
  },
);
