/**
 * Idempotency-Key compares the whole request: a repeat with the same key is a replay (the same
 * task, no second charge, also when the repeats arrive at once) only when every field and every
 * file's bytes are the same; any other request under the key is 409 `idempotency_key_reused`.
 * For video tasks and for async image tasks (generations and edits).
 */

import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { postJson, serverTest } from "../helpers/gateway.ts";
import { type ImageSetup, setupImages } from "../helpers/image_setup.ts";
import { mediaFixtures } from "../helpers/media_tools.ts";
import { maskPng, solidPng, squarePngWithTransparency } from "../helpers/png_fixtures.ts";
import { moneyMoves, setupVideo, type VideoFile } from "../helpers/video_setup.ts";

const fixtures = await mediaFixtures();
const RED = solidPng(16, 16, [200, 30, 30, 255]);
const BLUE = solidPng(16, 16, [30, 30, 200, 255]);

async function expectReused(response: Response, what: string) {
  const body = await response.json();
  assertEquals(response.status, 409, `${what}: ${JSON.stringify(body)}`);
  assertEquals(body.error.code, "idempotency_key_reused", what);
  assertEquals(body.error.param, "Idempotency-Key", what);
}

// --- video tasks ---

const VIDEO_FIELDS = { model: "vid-2", prompt: "the kite flies off", duration: "6" };
const VIDEO_FILES: VideoFile[] = [
  { field: "image_1", bytes: RED, filename: "kite.png" },
  { field: "video", bytes: fixtures.mp4_3s, filename: "moves.mp4" },
];

Deno.test(
  "video idempotency: the same request, files included, is one task and one charge, also at once",
  serverTest,
  async () => {
    await using s = await setupVideo();
    const headers = { "idempotency-key": "kite-001" };
    const answers = await Promise.all(
      [1, 2, 3].map(() => s.submit(VIDEO_FIELDS, VIDEO_FILES, headers)),
    );
    const bodies = await Promise.all(answers.map((answer) => answer.json()));
    assertEquals(answers.map((answer) => answer.status), [200, 200, 200], JSON.stringify(bodies));
    assertEquals(new Set(bodies.map((body) => body.id)).size, 1);
    const replays = answers.filter((a) => a.headers.get("x-gateway-idempotent-replay") === "true");
    assertEquals(replays.length, 2);
    await s.waitForTask(bodies[0].id);
    // Defaults written out (ratio adaptive) are the same request as defaults left out.
    const later = await s.submit({ ...VIDEO_FIELDS, ratio: "adaptive" }, VIDEO_FILES, headers);
    assertEquals(later.status, 200);
    assertEquals((await later.json()).id, bodies[0].id);
    assertEquals(s.ark.creates, 1);
    assertEquals(await moneyMoves(s), [["hold", -900_000], ["settle", 0]]);
  },
);

Deno.test(
  "video idempotency: the same key with another field or another file is 409, nothing charged",
  serverTest,
  async () => {
    await using s = await setupVideo();
    const headers = { "idempotency-key": "kite-002" };
    const first = await s.submit(VIDEO_FIELDS, VIDEO_FILES, headers);
    assertEquals(first.status, 200);
    const { id } = await first.json();
    await s.waitForTask(id);
    const balance = await s.gw.balance(s.keyId);
    const variants: Array<[string, Record<string, string>, VideoFile[]]> = [
      [
        "another image, same field and name",
        VIDEO_FIELDS,
        [{ ...VIDEO_FILES[0], bytes: BLUE }, VIDEO_FILES[1]],
      ],
      ["another video", VIDEO_FIELDS, [VIDEO_FILES[0], {
        ...VIDEO_FILES[1],
        bytes: fixtures.mp4_20s,
      }]],
      ["another file name", VIDEO_FIELDS, [
        { ...VIDEO_FILES[0], filename: "other.png" },
        VIDEO_FILES[1],
      ]],
      ["the image in another field", VIDEO_FIELDS, [
        { ...VIDEO_FILES[0], field: "image_2" },
        VIDEO_FILES[1],
      ]],
      ["a file left out", VIDEO_FIELDS, [VIDEO_FILES[0]]],
      ["a file added", VIDEO_FIELDS, [...VIDEO_FILES, {
        field: "audio",
        bytes: fixtures.wav_2500ms,
      }]],
      ["another duration", { ...VIDEO_FIELDS, duration: "7" }, VIDEO_FILES],
      ["another ratio", { ...VIDEO_FIELDS, ratio: "16:9" }, VIDEO_FILES],
      ["another prompt", { ...VIDEO_FIELDS, prompt: "the kite lands" }, VIDEO_FILES],
      ["another model", { ...VIDEO_FIELDS, model: "vid-2-480p" }, VIDEO_FILES],
    ];
    for (const [what, fields, files] of variants) {
      await expectReused(await s.submit(fields, files, headers), what);
    }
    assertEquals(s.ark.creates, 1);
    await assertNothingCharged(s, balance);
    assertEquals((await moneyMoves(s)).length, 2);
    // Another owner's same key is its own task.
    const other = await s.gw.createKey({ balance: 10_000_000, owner: "team-b" });
    const theirs = await postJson(
      s.gw,
      "/v1/video/generations",
      other.key,
      (() => {
        const form = new FormData();
        for (const [name, value] of Object.entries(VIDEO_FIELDS)) form.append(name, value);
        return form;
      })(),
      headers,
    );
    assertEquals(theirs.status, 200);
    assertOk((await theirs.json()).id !== id);
  },
);

Deno.test(
  "video idempotency: two different requests at once under one key make one task; the other is 409",
  serverTest,
  async () => {
    await using s = await setupVideo();
    const headers = { "idempotency-key": "kite-003" };
    const answers = await Promise.all([
      s.submit(VIDEO_FIELDS, VIDEO_FILES, headers),
      s.submit(VIDEO_FIELDS, [{ ...VIDEO_FILES[0], bytes: BLUE }, VIDEO_FILES[1]], headers),
    ]);
    const statuses = answers.map((answer) => answer.status).sort();
    assertEquals(statuses, [200, 409]);
    const won = answers.find((answer) => answer.status === 200)!;
    await s.waitForTask((await won.json()).id);
    await expectReused(answers.find((answer) => answer.status === 409)!, "the loser");
    assertEquals(s.ark.creates, 1);
    assertEquals(await moneyMoves(s), [["hold", -900_000], ["settle", 0]]);
  },
);

// --- image tasks ---

const ASYNC = { "x-gateway-async-task": "true" };

async function imageTask(
  s: ImageSetup,
  path: "generations" | "edits",
  body: Record<string, unknown> | FormData,
  key: string,
) {
  return await postJson(s.gw, `/v1/images/${path}`, s.key, body, {
    ...ASYNC,
    "idempotency-key": key,
  });
}

async function waitForImageTask(s: ImageSetup, id: string) {
  for (let i = 0; i < 400; i++) {
    const response = await fetch(`${s.gw.url}/v1/images/tasks/${id}`, {
      headers: { authorization: `Bearer ${s.key}` },
    });
    const { data } = await response.json();
    if (data.status === "succeeded" || data.status === "failed") return data;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`image task ${id} did not finish`);
}

function editForm(image: Uint8Array, fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  form.append("prompt", "add a kite");
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append("image", new Blob([image as Uint8Array<ArrayBuffer>]), "sky.png");
  return form;
}

Deno.test(
  "image task idempotency: the same request is one task and one charge, also at once",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images", { env: { GATEWAY_TASK_POLL_MS: "50" } });
    const body = { prompt: "a red kite", n: 2, size: "1024x1024" };
    const answers = await Promise.all(
      [1, 2, 3].map(() => imageTask(s, "generations", body, "img-1")),
    );
    const bodies = await Promise.all(answers.map((answer) => answer.json()));
    assertEquals(answers.map((answer) => answer.status), [200, 200, 200], JSON.stringify(bodies));
    const ids = new Set(bodies.map((answer) => answer.data.task_id));
    assertEquals(ids.size, 1);
    const replays = answers.filter((a) => a.headers.get("x-gateway-idempotent-replay") === "true");
    assertEquals(replays.length, 2);
    const [id] = ids;
    assertEquals((await waitForImageTask(s, id)).status, "succeeded");
    const later = await imageTask(s, "generations", body, "img-1");
    const laterBody = await later.json();
    assertEquals(laterBody.data, { task_id: id, status: "succeeded" });
    assertEquals(later.headers.get("x-gateway-idempotent-replay"), "true");
    assertEquals(s.upstreamRequests(), 1);
    const moves = (await s.gw.ledger(s.keyId)).filter((entry) => entry.type !== "credit");
    assertEquals(moves.map((entry) => [entry.type, entry.amount]), [["hold", -80_000], [
      "settle",
      0,
    ]]);

    // An edit repeated with the same image bytes is a replay too.
    const image = squarePngWithTransparency(64);
    const edit = await imageTask(s, "edits", editForm(image), "img-edit");
    const editId = (await edit.json()).data.task_id;
    const again = await imageTask(s, "edits", editForm(image.slice()), "img-edit");
    assertEquals((await again.json()).data.task_id, editId);
    assertEquals((await waitForImageTask(s, editId)).status, "succeeded");
  },
);

Deno.test(
  "image task idempotency: the same key with another field or another image is 409, nothing charged",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images", { env: { GATEWAY_TASK_POLL_MS: "50" } });
    const body = { prompt: "a red kite", n: 1, size: "1024x1024", user: "u-1" };
    const first = await imageTask(s, "generations", body, "img-2");
    assertEquals(first.status, 200);
    const { task_id: id } = (await first.json()).data;
    await waitForImageTask(s, id);
    const image = squarePngWithTransparency(64);
    const edit = await imageTask(s, "edits", editForm(image), "img-3");
    const editId = (await edit.json()).data.task_id;
    await waitForImageTask(s, editId);
    const balance = await s.gw.balance(s.keyId);
    const generations: Array<[string, Record<string, unknown>]> = [
      ["another prompt", { ...body, prompt: "a blue kite" }],
      ["another n", { ...body, n: 2 }],
      ["another size", { ...body, size: "1536x1024" }],
      ["another quality", { ...body, quality: "high" }],
      ["another user", { ...body, user: "u-2" }],
      ["another response_format", { ...body, response_format: "b64_json" }],
      ["another model", { ...body, model: "gen-image-2-4k" }],
    ];
    for (const [what, changed] of generations) {
      await expectReused(await imageTask(s, "generations", changed, "img-2"), what);
    }
    await expectReused(await imageTask(s, "edits", editForm(image), "img-2"), "an edit");
    await expectReused(await imageTask(s, "generations", body, "img-3"), "a generation");
    await expectReused(
      await imageTask(s, "edits", editForm(squarePngWithTransparency(32)), "img-3"),
      "another image",
    );
    await expectReused(
      await imageTask(s, "edits", editForm(image, { size: "1024x1024" }), "img-3"),
      "another field of the edit",
    );
    await expectReused(
      await imageTask(
        s,
        "edits",
        (() => {
          const form = editForm(image);
          form.append(
            "mask",
            new Blob([maskPng(64, 64) as Uint8Array<ArrayBuffer>]),
            "m.png",
          );
          return form;
        })(),
        "img-3",
      ),
      "a mask added",
    );
    assertEquals(s.upstreamRequests(), 2);
    await assertNothingCharged(s, balance);
  },
);
