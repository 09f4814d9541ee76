/**
 * The gateway as Deno Deploy runs it: a process with Deploy's permissions only
 * (`deno run --allow-net --allow-env --allow-read main.ts`: no file writes, no subprocess),
 * DENO_DEPLOYMENT_ID set, no ffprobe anywhere, KV in memory, the secrets from the environment.
 * Video tasks with every kind of reference (MP4 with its moov at the start and at the end,
 * fragmented MP4, MOV, WAV, MP3), an async image task and a text request run end to end against
 * the simulators, and every amount is the one the full gateway charges: the durations table
 * (tests/fixtures/media/durations.json, ffprobe's seconds) for video, and the same requests
 * through a full in-process gateway for all of them.
 */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { ADMIN_TOKEN, postJson, serverTest, startTestGateway } from "../helpers/gateway.ts";
import { spawnGateway } from "../helpers/gateway_process.ts";
import { DURATIONS, mediaFixture } from "../helpers/media_tools.ts";
import { findFfprobe } from "../helpers/external_tools.ts";
import { solidPng } from "../helpers/png_fixtures.ts";
import { tempDir } from "../helpers/temp_dir.ts";
import { adminOf, PER_SECOND, videoClient, type VideoFile } from "../helpers/video_setup.ts";
import { IMAGE_MODEL, IMAGE_PRICE } from "../helpers/image_setup.ts";
import { startArkVideoUpstream } from "../upstream/ark_video.ts";
import { startOpenAIImagesUpstream } from "../upstream/openai_images.ts";
import { startOpenAIChatUpstream } from "../upstream/openai_chat.ts";

/** Deploy's permissions: what the test starts main.ts with. */
export const DEPLOY_PERMISSIONS = ["--allow-net", "--allow-env", "--allow-read"];
const SECRET_KEY = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
const TEXT_MODEL = "text-sim";
const TEXT_PRICE = { input: 1_000_000, output: 2_000_000 };
const PNG = solidPng(16, 16, [20, 90, 200, 255]);

/** The video cases: the reference field and fixture of each kind. */
const VIDEO_CASES: Array<{ kind: string; field: "video" | "audio"; file: string }> = [
  { kind: "MP4, moov at the start", field: "video", file: "mp4_faststart.mp4" },
  { kind: "MP4, moov at the end", field: "video", file: "mp4_3s.mp4" },
  { kind: "fragmented MP4", field: "video", file: "mp4_fragmented.mp4" },
  { kind: "MOV", field: "video", file: "mov_3s.mov" },
  { kind: "WAV", field: "audio", file: "wav_2500ms.wav" },
  { kind: "MP3", field: "audio", file: "mp3_2s.mp3" },
];
const VIDEO_SECONDS = 5;

/** What the full gateway charges for a 5 s task with `file`: ffprobe's seconds to the ms. */
function expectedVideoAmount(file: string): number {
  const billedMs = VIDEO_SECONDS * 1000 + Math.round(DURATIONS.files[file].ffprobeSeconds! * 1000);
  return Math.ceil(PER_SECOND * billedMs / 1000);
}

type Admin = ReturnType<typeof adminOf>;

async function provision(
  admin: Admin,
  upstreams: { ark: string; images: string; chat: string },
): Promise<{ keyId: string; key: string }> {
  await admin("PUT", "/admin/models/vid-2", { kind: "video", price: { per_second: PER_SECOND } });
  await admin("POST", "/admin/channels", {
    name: "ark",
    type: "ark-video",
    base_url: upstreams.ark,
    keys: ["ark-upstream-test"],
    models: ["vid-2"],
  });
  await admin("PUT", `/admin/models/${IMAGE_MODEL}`, { kind: "image", price: IMAGE_PRICE });
  await admin("POST", "/admin/channels", {
    name: "images",
    type: "openai-images",
    base_url: upstreams.images,
    keys: ["sk-upstream-test"],
    models: [IMAGE_MODEL],
  });
  await admin("PUT", `/admin/models/${TEXT_MODEL}`, { kind: "text", price: TEXT_PRICE });
  await admin("POST", "/admin/channels", {
    name: "chat",
    type: "openai",
    base_url: upstreams.chat,
    keys: ["sk-upstream-test"],
    models: [TEXT_MODEL],
  });
  const { id, key } = await admin("POST", "/admin/keys", { name: "k", balance: 100_000_000 });
  return { keyId: id, key };
}

/**
 * The key's balance once no hold is open (the last ledger entry is not a hold) and `charged`
 * text requests are in its aggregated charges (written every flush interval).
 */
async function settledBalance(admin: Admin, keyId: string, charged = 0): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const last = await admin("GET", `/admin/ledger?key=${keyId}&order=desc&limit=1`);
    const all = await admin("GET", `/admin/ledger?key=${keyId}&limit=1000`);
    const chargedNow = (all.data as Array<{ type: string; requests?: number }>)
      .filter((entry) => entry.type === "charge")
      .reduce((sum, entry) => sum + (entry.requests ?? 1), 0);
    if (last.data?.[0]?.type !== "hold" && chargedNow >= charged) {
      return (await admin("GET", `/admin/keys/${keyId}`)).balance;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`a hold of ${keyId} stayed open`);
}

interface Outcome {
  /** What each request cost, by name. */
  amounts: Record<string, number>;
  /** x-gateway-duration-reader of each video task. */
  readers: string[];
}

/** Every request of the scenario against the gateway at `url`; each one's amount. */
async function runScenario(
  url: string,
  ark: ReturnType<typeof startArkVideoUpstream>,
  upstreams: { ark: string; images: string; chat: string },
) {
  const admin = adminOf(url, ADMIN_TOKEN);
  const { keyId, key } = await provision(admin, upstreams);
  const video = videoClient(url, key);
  const outcome: Outcome = { amounts: {}, readers: [] };
  let balance = await settledBalance(admin, keyId);
  const spent = async (name: string, charged = 0) => {
    const now = await settledBalance(admin, keyId, charged);
    outcome.amounts[name] = balance - now;
    balance = now;
  };

  for (const { kind, field, file } of VIDEO_CASES) {
    const bytes = mediaFixture(file);
    const files: VideoFile[] = [{ field, bytes, filename: file }];
    if (field === "audio") files.unshift({ field: "image_1", bytes: PNG, filename: "still.png" });
    const response = await video.submit({
      model: "vid-2",
      prompt: `a task with a reference ${kind}`,
      duration: String(VIDEO_SECONDS),
    }, files);
    const body = await response.json();
    assertEquals(response.status, 200, `${kind}: ${JSON.stringify(body)}`);
    outcome.readers.push(response.headers.get("x-gateway-duration-reader") ?? "none");
    assertEquals(response.headers.get("x-gateway-cost-units"), String(expectedVideoAmount(file)));
    const task = await video.waitForTask(body.id);
    assertEquals(task.status, "SUCCESS", `${kind}: ${task.fail_reason}`);
    assertEquals(task.cost_units, expectedVideoAmount(file), kind);
    // The upstream fetched the reference from the gateway's media store, byte for byte.
    const upstream = [...ark.tasks.values()].find((t) =>
      t.body.content.some((part: { text?: string }) =>
        part.text === `a task with a reference ${kind}`
      )
    );
    const fetched = upstream?.references.find((ref) => ref.role === `reference_${field}`);
    assertEquals(fetched?.bytes, bytes, `${kind}: the upstream got other bytes`);
    await spent(`video: ${kind}`);
  }

  const image = await postJson({ url }, "/v1/images/generations", key, {
    model: IMAGE_MODEL,
    prompt: "a lighthouse",
  }, { "x-gateway-async-task": "true" });
  const imageTask = (await image.json()).data.task_id as string;
  for (let i = 0; i < 400; i++) {
    const answer = await fetch(`${url}/v1/images/tasks/${imageTask}`, {
      headers: { authorization: `Bearer ${key}` },
    }).then((response) => response.json());
    if (answer.data.status === "succeeded") break;
    assertOk(answer.data.status !== "failed", answer.data.fail_reason);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  await spent("image task");

  const text = await postJson({ url }, "/v1/chat/completions", key, {
    model: TEXT_MODEL,
    messages: [{ role: "user", content: "Say something about lighthouses" }],
  });
  assertEquals(text.status, 200);
  assertOk((await text.json()).choices[0].message.content);
  await spent("text", 1);

  assertEquals(await settledBalance(admin, keyId), 100_000_000 - sum(outcome.amounts));
  return outcome;
}

function sum(amounts: Record<string, number>): number {
  return Object.values(amounts).reduce((total, amount) => total + amount, 0);
}

Deno.test(
  "Deno Deploy: no writes, no subprocess, no ffprobe; every reference kind, an image task and text billed as the full gateway bills them",
  serverTest,
  async () => {
    await using ark = startArkVideoUpstream();
    await using images = startOpenAIImagesUpstream();
    await using chat = startOpenAIChatUpstream();
    const upstreams = { ark: ark.baseUrl, images: images.baseUrl, chat: chat.baseUrl };
    await using emptyPath = await tempDir();

    await using deploy = await spawnGateway(
      {
        DENO_DEPLOYMENT_ID: "deploy-test-0001",
        GATEWAY_KV: ":memory:",
        GATEWAY_SECRET_KEY: SECRET_KEY,
        GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
        // No ffprobe: a PATH with nothing in it, and FFPROBE_PATH pointing nowhere.
        PATH: emptyPath.path,
        FFPROBE_PATH: `${emptyPath.path}/ffprobe`,
        GATEWAY_TASK_POLL_MS: "50",
        GATEWAY_VIDEO_POLL_MIN_MS: "20",
        GATEWAY_VIDEO_POLL_MAX_MS: "100",
      },
      undefined,
      { permissions: DEPLOY_PERMISSIONS, clearEnv: true },
    );
    const boot = deploy.lines.map((line) => JSON.parse(line));
    const platform = boot.find((line) => line.msg === "platform");
    assertOk(
      platform,
      `no platform line in:\n${deploy.lines.join("\n")}\n${await stderrOf(deploy)}`,
    );
    assertEquals(
      [platform.serverless, platform.kv, platform.queues, platform.crons],
      [true, "memory", false, true],
    );

    const onDeploy = await runScenario(deploy.url, ark, upstreams);
    assertEquals(onDeploy.readers, VIDEO_CASES.map(() => "in-process"));
    const readerLine = deploy.lines.map((line) => JSON.parse(line)).find((line) =>
      line.msg === "duration reader"
    );
    assertEquals(readerLine?.reader, "in-process");
    assertOk(String(readerLine?.why).includes("may not run subprocesses"), readerLine?.why);
    // The request log line of each video submission names the reader.
    const logged = deploy.lines.map((line) => JSON.parse(line)).filter((line) =>
      line.msg === "request" && line.route === "/v1/video/generations"
    );
    assertEquals(logged.map((line) => line.duration_reader), onDeploy.readers);

    // The full gateway (every permission; ffprobe where this machine has one) charges the same.
    await using full = await startTestGateway({
      FFPROBE_PATH: (await findFfprobe()).path ?? "ffprobe",
      GATEWAY_TASK_POLL_MS: "50",
      GATEWAY_VIDEO_POLL_MIN_MS: "20",
      GATEWAY_VIDEO_POLL_MAX_MS: "100",
    });
    const onFull = await runScenario(full.url, ark, upstreams);
    const ffprobe = await findFfprobe();
    assertEquals(onFull.readers, VIDEO_CASES.map(() => ffprobe.path ? "ffprobe" : "in-process"));
    assertEquals(onDeploy.amounts, onFull.amounts);
    for (const { kind, file } of VIDEO_CASES) {
      assertEquals(onDeploy.amounts[`video: ${kind}`], expectedVideoAmount(file), kind);
    }
    assertEquals(onDeploy.amounts["image task"], IMAGE_PRICE.per_image);
    assertOk(onDeploy.amounts.text > 0);
    if (Deno.env.get("DEPLOY_TEST_PRINT")) console.log(JSON.stringify({ onDeploy, onFull, boot }));

    deploy.child.kill("SIGTERM");
    assertEquals((await deploy.child.status).code, 0, await stderrOf(deploy));
  },
);

async function stderrOf(process: { stderr: Promise<string> }): Promise<string> {
  return await Promise.race([
    process.stderr,
    new Promise<string>((r) => setTimeout(() => r(""), 100)),
  ]);
}

Deno.test(
  "Deno Deploy: a boot without GATEWAY_SECRET_KEY and GATEWAY_ADMIN_TOKEN stops, naming both",
  serverTest,
  async () => {
    await using deploy = await spawnGateway(
      {
        DENO_DEPLOYMENT_ID: "deploy-test-0002",
        GATEWAY_KV: ":memory:",
      },
      undefined,
      { permissions: DEPLOY_PERMISSIONS, clearEnv: true },
    );
    assertEquals((await deploy.child.status).code, 1);
    const stderr = await deploy.stderr;
    assertOk(stderr.includes("GATEWAY_SECRET_KEY and GATEWAY_ADMIN_TOKEN must be set"), stderr);
    assertEquals(deploy.lines.filter((line) => line.includes('"listening"')), []);
  },
);

Deno.test(
  "Deploy's permissions without DENO_DEPLOYMENT_ID: the same platform KV rules, secrets and crons",
  serverTest,
  async () => {
    await using deploy = await spawnGateway(
      {
        GATEWAY_KV: ":memory:",
        GATEWAY_SECRET_KEY: SECRET_KEY,
        GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
      },
      undefined,
      { permissions: DEPLOY_PERMISSIONS, clearEnv: true },
    );
    const platform = deploy.lines.map((line) => JSON.parse(line)).find((line) =>
      line.msg === "platform"
    );
    assertEquals([platform?.serverless, platform?.queues, platform?.crons], [true, false, true]);
    assertOk(String(platform?.reason).startsWith("no write permission"), platform?.reason);
    const health = await fetch(`${deploy.url}/healthz`);
    assertEquals(health.status, 200);
    await health.body?.cancel();
    deploy.child.kill("SIGTERM");
    assertEquals((await deploy.child.status).code, 0);
  },
);
