/** Every refused video request: its status, its error, and that nothing was charged or sent. */

import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { postJson, serverTest } from "../helpers/gateway.ts";
import { mediaFixtures } from "../helpers/media_tools.ts";
import { solidPng } from "../helpers/png_fixtures.ts";
import { setupVideo, type VideoFile, type VideoSetup } from "../helpers/video_setup.ts";
import { kvKeys } from "../../core/kv/kv_keys.ts";

const fixtures = mediaFixtures();
const PNG = solidPng(16, 16, [10, 200, 30, 255]);
const BASE = { model: "vid-2", prompt: "a lighthouse at dusk" };

interface Refusal {
  name: string;
  fields?: Record<string, string>;
  files?: VideoFile[];
  status: number;
  code: string;
  param?: string;
  message?: RegExp;
}

const REFUSALS: Refusal[] = [
  {
    name: "no model",
    fields: { prompt: "x" },
    status: 400,
    code: "invalid_request",
    param: "model",
  },
  {
    name: "no prompt",
    fields: { model: "vid-2" },
    status: 400,
    code: "invalid_request",
    param: "prompt",
  },
  {
    name: "blank prompt",
    fields: { ...BASE, prompt: "  " },
    status: 400,
    code: "invalid_request",
    param: "prompt",
  },
  {
    name: "duration 3",
    fields: { ...BASE, duration: "3" },
    status: 400,
    code: "invalid_request",
    param: "duration",
    message: /4 to 15/,
  },
  {
    name: "duration 16",
    fields: { ...BASE, duration: "16" },
    status: 400,
    code: "invalid_request",
    param: "duration",
  },
  {
    name: "duration 5.5",
    fields: { ...BASE, duration: "5.5" },
    status: 400,
    code: "invalid_request",
    param: "duration",
  },
  {
    name: "duration text",
    fields: { ...BASE, duration: "five" },
    status: 400,
    code: "invalid_request",
    param: "duration",
  },
  {
    name: "unknown ratio",
    fields: { ...BASE, ratio: "2:1" },
    status: 400,
    code: "invalid_request",
    param: "ratio",
  },
  {
    name: "adaptive on vid-2-cheap",
    fields: { ...BASE, model: "vid-2-cheap", ratio: "adaptive" },
    status: 400,
    code: "invalid_request",
    param: "ratio",
    message: /does not support ratio 'adaptive'/,
  },
  {
    name: "resolution",
    fields: { ...BASE, resolution: "1080p" },
    status: 400,
    code: "invalid_request",
    param: "resolution",
    message: /comes from the model name/,
  },
  {
    name: "unknown model",
    fields: { ...BASE, model: "vid-9" },
    status: 404,
    code: "model_not_found",
    param: "model",
  },
  {
    name: "image model",
    fields: { ...BASE, model: "gen-image-2" },
    status: 400,
    code: "wrong_model_kind",
    param: "model",
  },
  {
    name: "a fourth image",
    files: [{ field: "image_4", bytes: PNG }],
    status: 400,
    code: "invalid_request",
    param: "image_4",
    message: /Up to 3 reference images/,
  },
  {
    name: "two videos",
    files: [{ field: "video", bytes: fixtures.mp4_3s }, { field: "video", bytes: fixtures.mp4_3s }],
    status: 400,
    code: "invalid_request",
    param: "video",
  },
  {
    name: "WAV sent as the video",
    files: [{ field: "video", bytes: fixtures.wav_2500ms, type: "video/mp4" }],
    status: 400,
    code: "invalid_reference_file",
    param: "video",
    message: /must be a video file \(MP4, MOV\); this file is audio\/wav/,
  },
  {
    name: "PNG sent as the audio",
    files: [{ field: "image_1", bytes: PNG }, { field: "audio", bytes: PNG }],
    status: 400,
    code: "invalid_reference_file",
    param: "audio",
  },
  {
    name: "MP4 sent as an image",
    files: [{ field: "image_1", bytes: fixtures.mp4_3s }],
    status: 400,
    code: "invalid_reference_file",
    param: "image_1",
  },
  {
    name: "unknown bytes",
    files: [{ field: "image_2", bytes: new TextEncoder().encode("just some text, not an image") }],
    status: 400,
    code: "invalid_reference_file",
    param: "image_2",
    message: /not recognised/,
  },
  {
    name: "empty file",
    files: [{ field: "image_1", bytes: new Uint8Array(0) }],
    status: 400,
    code: "invalid_reference_file",
    param: "image_1",
  },
  {
    name: "corrupt MP4: duration unreadable",
    files: [{ field: "video", bytes: fixtures.corrupt_mp4 }],
    status: 400,
    code: "media_duration_unreadable",
    param: "video",
  },
  {
    name: "MP4 without a video stream",
    files: [{ field: "video", bytes: fixtures.mp4_audio_only }],
    status: 400,
    code: "invalid_request",
    param: "video",
    message: /no video stream/,
  },
  {
    name: "reference video longer than 15 s",
    files: [{ field: "video", bytes: fixtures.mp4_20s }],
    status: 400,
    code: "invalid_request",
    param: "video",
    message: /2 to 15 seconds/,
  },
  {
    name: "audio with no image or video",
    files: [{ field: "audio", bytes: fixtures.wav_2500ms }],
    status: 400,
    code: "invalid_request",
    param: "audio",
  },
  {
    name: "image over 30 MB",
    files: [{ field: "image_1", bytes: bigFile(PNG, 31 * 1024 * 1024) }],
    status: 413,
    code: "file_too_large",
    param: "image_1",
  },
  {
    name: "file over 50 MB",
    files: [{ field: "video", bytes: bigFile(fixtures.mp4_3s, 51 * 1024 * 1024) }],
    status: 413,
    code: "file_too_large",
  },
];

function bigFile(prefix: Uint8Array, size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  bytes.set(prefix);
  return bytes;
}

async function expectRefused(s: VideoSetup, refusal: Refusal) {
  const response = await s.submit(refusal.fields ?? BASE, refusal.files ?? []);
  const body = await response.json();
  assertEquals(response.status, refusal.status, `${refusal.name}: ${JSON.stringify(body)}`);
  assertEquals(body.error.code, refusal.code, refusal.name);
  if (refusal.param) assertEquals(body.error.param, refusal.param, refusal.name);
  if (refusal.message) assertOk(refusal.message.test(body.error.message), body.error.message);
  assertOk(typeof body.error.message === "string" && body.error.type, refusal.name);
}

async function storedMediaCount(s: VideoSetup): Promise<number> {
  let count = 0;
  for await (const _ of s.gw.running.gateway.kv.list({ prefix: kvKeys.media("").slice(0, 1) })) {
    count++;
  }
  return count;
}

Deno.test(
  "video validation: every rule refused with its error, nothing charged or sent",
  serverTest,
  async () => {
    await using s = await setupVideo();
    const balance = await s.gw.balance(s.keyId);
    for (const refusal of REFUSALS) await expectRefused(s, refusal);
    assertEquals(s.ark.creates, 0);
    await assertNothingCharged(s, balance, { untouched: true });
    assertEquals(await storedMediaCount(s), 0);
  },
);

Deno.test("video validation: envelope and key errors", serverTest, async () => {
  await using s = await setupVideo();
  const balance = await s.gw.balance(s.keyId);
  const json = await postJson(s.gw, "/v1/video/generations", s.key, BASE);
  assertEquals(json.status, 400);
  assertEquals((await json.json()).error.code, "invalid_content_type");
  const noKey = await fetch(`${s.gw.url}/v1/video/generations`, { method: "POST" });
  assertEquals(noKey.status, 401);
  await noKey.body?.cancel();
  const longKey = await s.submit(BASE, [], { "idempotency-key": "k".repeat(256) });
  assertEquals(longKey.status, 400);
  assertEquals((await longKey.json()).error.param, "Idempotency-Key");
  const textAsFile = new FormData();
  textAsFile.append("model", "vid-2");
  textAsFile.append("prompt", "x");
  textAsFile.append("video", "not a file");
  const asText = await postJson(s.gw, "/v1/video/generations", s.key, textAsFile);
  assertEquals(asText.status, 400);
  assertEquals((await asText.json()).error.param, "video");
  assertEquals(s.ark.creates, 0);
  await assertNothingCharged(s, balance, { untouched: true });
});

Deno.test(
  "video validation: 402 when the balance cannot cover the seconds; nothing kept",
  serverTest,
  async () => {
    await using s = await setupVideo({ balance: 600_000 });
    const response = await s.submit({ ...BASE, duration: "4" }, [
      { field: "video", bytes: fixtures.mp4_3s },
    ]);
    assertEquals(response.status, 402);
    assertEquals((await response.json()).error.code, "insufficient_balance");
    assertEquals(s.ark.creates, 0);
    await assertNothingCharged(s, 600_000, { untouched: true });
    assertEquals(await storedMediaCount(s), 0);
  },
);

Deno.test(
  "video: without ffprobe, durations are read in process and billed the same; it says which",
  serverTest,
  async () => {
    await using s = await setupVideo({ env: { FFPROBE_PATH: "/nonexistent/ffprobe" } });
    const before = await s.gw.balance(s.keyId);
    const response = await s.submit({ ...BASE, duration: "4" }, [
      { field: "video", bytes: fixtures.mp4_3s },
      { field: "audio", bytes: fixtures.mp3_2s },
    ]);
    assertEquals(response.status, 200);
    assertEquals(response.headers.get("x-gateway-duration-reader"), "in-process");
    assertEquals(response.headers.get("x-gateway-billed-seconds"), "9.088");
    assertEquals(response.headers.get("x-gateway-cost-units"), "908800");
    const { id } = await response.json();
    const task = await s.waitForTask(id);
    assertEquals(task.status, "SUCCESS");
    assertEquals(await s.gw.assertLedgerInvariant(s.keyId), before - 908_800);
    const record = await s.gw.running.gateway.tasks.get<{ duration_reader: string }>(id);
    assertEquals(record?.input.duration_reader, "in-process");
    await s.gw.settle();
    const log = await s.gw.admin("GET", "/admin/requests?limit=50");
    const logged = log.body.data.filter((entry: { route: string; status: number }) =>
      entry.route === "/v1/video/generations" && entry.status === 200
    );
    assertEquals(logged.map((entry: { duration_reader?: string }) => entry.duration_reader), [
      "in-process",
    ]);
    const query = await fetch(`${s.gw.url}/v1/video/generations/${id}`, {
      headers: { authorization: `Bearer ${s.key}` },
    });
    assertEquals(query.headers.get("x-gateway-duration-reader"), "in-process");
    await query.body?.cancel();
    // A text-only task reads no duration: no reader is named.
    const textOnly = await s.submit({ ...BASE, extra_field: "x" });
    assertEquals(textOnly.status, 200);
    assertEquals(textOnly.headers.get("x-gateway-ignored-fields"), "extra_field");
    assertEquals(textOnly.headers.get("x-gateway-duration-reader"), null);
    await s.waitForTask((await textOnly.json()).id);
  },
);
