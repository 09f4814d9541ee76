/**
 * Per-model limits (the catalog's `limits`): the defaults are today's rules and refuse with a 4xx
 * naming the field, nothing charged; a model whose limits are wider accepts what the defaults
 * refuse, one whose limits are narrower refuses what they accept; PATCH sets and clears them.
 */

import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { postJson, serverTest } from "../helpers/gateway.ts";
import { IMAGE_MODEL, setupImages } from "../helpers/image_setup.ts";
import { mediaFixtures } from "../helpers/media_tools.ts";
import { solidPng } from "../helpers/png_fixtures.ts";
import {
  ARK_MODEL,
  PER_SECOND,
  setupVideo,
  type VideoFile,
  type VideoSetup,
} from "../helpers/video_setup.ts";

const fixtures = await mediaFixtures();
const MIB = 1024 * 1024;
const PNG = solidPng(16, 16, [30, 90, 200, 255]);

/**
 * A silent WAV (8 kHz, mono, 8-bit) of `seconds`; with `bytes`, a JUNK chunk after the samples
 * makes the file that large without making it last longer.
 */
function silentWav(seconds: number, bytes?: number): Uint8Array {
  const samples = 2 * Math.round(4000 * seconds);
  const data = 44 + samples;
  const size = Math.max(data, bytes ?? 0);
  const wav = new Uint8Array(size).fill(128, 44, data);
  const view = new DataView(wav.buffer);
  const ascii = (offset: number, text: string) =>
    [...text].forEach((char, i) => view.setUint8(offset + i, char.charCodeAt(0)));
  ascii(0, "RIFF");
  view.setUint32(4, size - 8, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, 8000, true);
  view.setUint32(28, 8000, true);
  view.setUint16(32, 1, true);
  view.setUint16(34, 8, true);
  ascii(36, "data");
  view.setUint32(40, samples, true);
  if (size > data) {
    ascii(data, "JUNK");
    view.setUint32(data + 4, size - data - 8, true);
  }
  return wav;
}

function padded(prefix: Uint8Array, size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  bytes.set(prefix);
  return bytes;
}

interface Case {
  name: string;
  fields?: Record<string, string>;
  files?: VideoFile[];
  /** What the default refuses: status and the field named. */
  status: number;
  param: string;
  message?: RegExp;
}

const BASE = { prompt: "a lighthouse at dusk", duration: "4" };

/** Requests the default limits refuse and the wide model below accepts. */
const BEYOND_DEFAULTS: Case[] = [
  {
    name: "prompt of 5,001 characters",
    fields: { ...BASE, prompt: "p".repeat(5001) },
    status: 400,
    param: "prompt",
    message: /at most 5,000 characters/,
  },
  {
    name: "audio alone",
    files: [{ field: "audio", bytes: fixtures.wav_2500ms }],
    status: 400,
    param: "audio",
    message: /needs at least one reference image or video/,
  },
  {
    name: "reference video of 20 s",
    files: [{ field: "video", bytes: fixtures.mp4_20s }],
    status: 400,
    param: "video",
    message: /2 to 15 seconds/,
  },
  {
    name: "reference audio of 16 s",
    files: [{ field: "image_1", bytes: PNG }, { field: "audio", bytes: silentWav(16) }],
    status: 400,
    param: "audio",
    message: /at most 15 seconds/,
  },
  {
    name: "image of 31 MB",
    files: [{ field: "image_1", bytes: padded(PNG, 31 * MIB) }],
    status: 413,
    param: "image_1",
    message: /at most 30 MB/,
  },
  {
    name: "audio of 16 MB",
    files: [{ field: "image_1", bytes: PNG }, { field: "audio", bytes: silentWav(2, 16 * MIB) }],
    status: 413,
    param: "audio",
    message: /at most 15 MB/,
  },
];

const WIDE_LIMITS = {
  prompt_max_chars: 6000,
  audio_alone: true,
  reference_video_seconds: { min: 1, max: 25 },
  reference_audio_max_seconds: 20,
  reference_max_bytes: { image: 60 * MIB, audio: 20 * MIB },
};

/** Adds catalog model `id` (per second, with `limits`) served by the setup's ark channel. */
async function addModel(s: VideoSetup, id: string, limits: unknown) {
  await s.gw.putModel(id, { kind: "video", price: { per_second: PER_SECOND }, limits });
  await s.gw.addChannel({
    name: `ark-${id}`,
    type: "ark-video",
    base_url: s.ark.baseUrl,
    keys: ["ark-upstream-test"],
    models: [id],
    model_map: { [id]: ARK_MODEL },
  });
}

async function expectRefused(s: VideoSetup, model: string, refusal: Case) {
  const response = await s.submit({ ...BASE, ...refusal.fields, model }, refusal.files ?? []);
  const body = await response.json();
  const what = `${model}, ${refusal.name}: ${JSON.stringify(body).slice(0, 300)}`;
  assertEquals(response.status, refusal.status, what);
  assertEquals(body.error.param, refusal.param, what);
  if (refusal.message) assertOk(refusal.message.test(body.error.message), what);
}

Deno.test(
  "model limits: the defaults refuse beyond the upstream's limits, a 4xx naming the field, nothing charged",
  serverTest,
  async () => {
    await using s = await setupVideo();
    const balance = await s.gw.balance(s.keyId);
    for (const refusal of BEYOND_DEFAULTS) await expectRefused(s, "vid-2", refusal);
    assertEquals(s.ark.creates, 0);
    await assertNothingCharged(s, balance, { untouched: true });
  },
);

Deno.test(
  "model limits: a model with wider limits accepts each request the defaults refuse",
  serverTest,
  async () => {
    await using s = await setupVideo();
    await addModel(s, "vid-2-wide", WIDE_LIMITS);
    for (const request of BEYOND_DEFAULTS) {
      const response = await s.submit(
        { ...BASE, ...request.fields, model: "vid-2-wide" },
        request.files ?? [],
      );
      const body = await response.json();
      assertEquals(response.status, 200, `${request.name}: ${JSON.stringify(body)}`);
      const task = await s.waitForTask(body.id);
      assertEquals(task.status, "SUCCESS", `${request.name}: ${task.fail_reason}`);
    }
    const references = [...s.ark.tasks.values()].map((task) => task.references.length);
    assertEquals(references, [0, 1, 1, 2, 1, 2]);
    // Audio alone is billed for its seconds, as beside an image.
    const audioAlone = await s.submit({ ...BASE, model: "vid-2-wide" }, [
      { field: "audio", bytes: fixtures.wav_2500ms },
    ]);
    assertEquals(audioAlone.headers.get("x-gateway-billed-seconds"), "6.5");
    await s.waitForTask((await audioAlone.json()).id);
  },
);

Deno.test(
  "model limits: a larger reference cap on one model widens the upload limit past the default 50 MB",
  serverTest,
  async () => {
    await using s = await setupVideo();
    const big = padded(PNG, 55 * MIB);
    const before = await s.submit({ ...BASE, model: "vid-2" }, [{ field: "image_1", bytes: big }]);
    assertEquals(before.status, 413);
    await before.body?.cancel();
    await addModel(s, "vid-2-big", { reference_max_bytes: { image: 60 * MIB } });
    const refused = await s.submit({ ...BASE, model: "vid-2" }, [{ field: "image_1", bytes: big }]);
    assertEquals(refused.status, 413);
    assertEquals((await refused.json()).error.param, "image_1");
    const accepted = await s.submit({ ...BASE, model: "vid-2-big" }, [
      { field: "image_1", bytes: big },
    ]);
    assertEquals(accepted.status, 200);
    assertEquals((await s.waitForTask((await accepted.json()).id)).status, "SUCCESS");
    const [upstream] = [...s.ark.tasks.values()];
    assertEquals(upstream.references[0].bytes.length, big.length);
  },
);

Deno.test(
  "model limits: a model with narrower limits refuses what the defaults accept, nothing charged",
  serverTest,
  async () => {
    await using s = await setupVideo();
    await addModel(s, "vid-2-narrow", {
      prompt_max_chars: 25,
      reference_video_seconds: { min: 4, max: 6 },
      reference_audio_max_seconds: 2,
      reference_max_bytes: { image: PNG.length - 1 },
      audio_alone: true,
    });
    const balance = await s.gw.balance(s.keyId);
    const narrow: Case[] = [
      {
        name: "prompt of 26 characters",
        fields: { prompt: "p".repeat(26) },
        status: 400,
        param: "prompt",
        message: /at most 25 characters for the model 'vid-2-narrow'/,
      },
      {
        name: "reference video of 3 s",
        files: [{ field: "video", bytes: fixtures.mp4_3s }],
        status: 400,
        param: "video",
        message: /4 to 6 seconds/,
      },
      {
        name: "reference audio of 2.5 s",
        files: [{ field: "audio", bytes: fixtures.wav_2500ms }],
        status: 400,
        param: "audio",
        message: /at most 2 seconds/,
      },
      {
        name: "image one byte over the model's cap",
        files: [{ field: "image_2", bytes: PNG }],
        status: 413,
        param: "image_2",
      },
    ];
    for (const refusal of narrow) await expectRefused(s, "vid-2-narrow", refusal);
    assertEquals(s.ark.creates, 0);
    await assertNothingCharged(s, balance, { untouched: true });
    // vid-2's defaults accept the same requests (but audio alone).
    for (const request of narrow.filter((request) => !request.name.startsWith("reference audio"))) {
      const response = await s.submit(
        { ...BASE, ...request.fields, model: "vid-2" },
        request.files ?? [],
      );
      assertEquals(response.status, 200, request.name);
      assertEquals((await s.waitForTask((await response.json()).id)).status, "SUCCESS");
    }
  },
);

Deno.test(
  "model limits: PATCH sets and clears them; a bad value is a 400 naming it",
  serverTest,
  async () => {
    await using s = await setupVideo();
    const audioAlone = () =>
      s.submit({ ...BASE, model: "vid-2" }, [{ field: "audio", bytes: fixtures.wav_2500ms }]);
    const refused = await audioAlone();
    assertEquals(refused.status, 400);
    await refused.body?.cancel();
    const patched = await s.gw.admin("PATCH", "/admin/models/vid-2", {
      limits: { audio_alone: true },
    });
    assertEquals(patched.status, 200);
    assertEquals(patched.body.limits, { audio_alone: true });
    const accepted = await audioAlone();
    assertEquals(accepted.status, 200);
    await s.waitForTask((await accepted.json()).id);
    assertEquals((await s.gw.admin("PATCH", "/admin/models/vid-2", { limits: {} })).status, 200);
    const again = await audioAlone();
    assertEquals(again.status, 400);
    await again.body?.cancel();

    const bad: Array<[unknown, string]> = [
      [{ reference_video_seconds: { min: 9, max: 3 } }, "limits.reference_video_seconds"],
      [{ ratios: ["16:9"], default_ratio: "1:1" }, "limits.default_ratio"],
      [{ prompt_max_chars: 0 }, "limits.prompt_max_chars"],
      [{ ratios: ["2:1"] }, "limits.ratios.0"],
      [{ max_seconds: 3 }, "limits.max_seconds"],
    ];
    for (const [limits, param] of bad) {
      const answer = await s.gw.admin("PATCH", "/admin/models/vid-2", { limits });
      assertEquals(answer.status, 400, JSON.stringify(limits));
      assertEquals(answer.body.error.param, param, JSON.stringify(answer.body.error));
    }
  },
);

Deno.test(
  "model limits: an image model's user is at most 256 characters by default, else its user_max_chars",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images");
    const generate = (user: string, headers: Record<string, string> = {}) =>
      postJson(s.gw, "/v1/images/generations", s.key, { prompt: "p", user }, headers);
    const asTask = { "x-gateway-async-task": "true" };
    for (const headers of [{}, asTask]) {
      const refused = await generate("u".repeat(257), headers);
      const error = (await refused.json()).error;
      assertEquals(refused.status, 400);
      assertEquals(error.param, "user");
      assertOk(error.message.includes("at most 256 characters"), error.message);
    }
    assertEquals(s.upstreamRequests(), 0);
    await assertNothingCharged(s, 10_000_000, { untouched: true });

    await s.gw.admin("PATCH", `/admin/models/${IMAGE_MODEL}`, { limits: { user_max_chars: 300 } });
    const sync = await generate("u".repeat(300));
    assertEquals(sync.status, 200);
    await sync.body?.cancel();
    const task = await generate("u".repeat(300), asTask);
    assertEquals(task.status, 200);
    await task.body?.cancel();
    assertEquals(s.openai!.requests[0].body.user, "u".repeat(300));

    await s.gw.admin("PATCH", `/admin/models/${IMAGE_MODEL}`, { limits: { user_max_chars: 8 } });
    const narrow = await generate("end-user-7");
    assertEquals(narrow.status, 400);
    assertEquals((await narrow.json()).error.param, "user");
  },
);
