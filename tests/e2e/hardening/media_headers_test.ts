/**
 * Hosted media can never act as a page on the gateway's origin: every answer of
 * `GET|HEAD /media/{id}.{ext}` forbids sniffing, runs in an empty sandbox and names the file.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { postJson, serverTest, startTestGateway } from "../../helpers/gateway.ts";
import { kvKeys } from "../../../core/kv/kv_keys.ts";
import { setupImages } from "../../helpers/image_setup.ts";
import { mediaFixtures } from "../../helpers/media_tools.ts";
import { solidPng } from "../../helpers/png_fixtures.ts";
import { setupVideo } from "../../helpers/video_setup.ts";

/** Asserts the safety headers of one media answer, for a file of `id` with `extension`. */
function assertSafetyHeaders(response: Response, file: { id: string; extension: string }) {
  const what = `${response.status} ${response.url}`;
  assertEquals(response.headers.get("x-content-type-options"), "nosniff", what);
  assertEquals(
    response.headers.get("content-security-policy"),
    "sandbox; default-src 'none'",
    what,
  );
  assertEquals(
    response.headers.get("content-disposition"),
    `inline; filename="${file.id}.${file.extension}"`,
    what,
  );
}

/** The id and extension of a hosted media URL. */
function fileOf(url: string) {
  const match = /\/media\/(med_[0-9A-Za-z]{32})\.([a-z0-9]+)$/.exec(url);
  assertOk(match, url);
  return { id: match[1], extension: match[2] };
}

/** GET (200), ranged GET (206) and HEAD (plain and ranged) of `url`, each with the headers. */
async function assertServedSafely(url: string, contentType: string, size: number) {
  const file = fileOf(url);
  const whole = await fetch(url);
  assertEquals(whole.status, 200);
  assertEquals(whole.headers.get("content-type"), contentType);
  assertSafetyHeaders(whole, file);
  assertEquals((await whole.bytes()).length, size);

  const part = await fetch(url, { headers: { range: "bytes=0-9" } });
  assertEquals(part.status, 206);
  assertEquals(part.headers.get("content-range"), `bytes 0-9/${size}`);
  assertSafetyHeaders(part, file);
  assertEquals((await part.bytes()).length, 10);

  for (const range of [null, "bytes=-4"]) {
    const headers: Record<string, string> = range ? { range } : {};
    const head = await fetch(url, { method: "HEAD", headers });
    assertEquals(head.status, range ? 206 : 200);
    assertEquals(head.headers.get("content-type"), contentType);
    assertSafetyHeaders(head, file);
    await head.body?.cancel();
  }

  const outside = await fetch(url, { headers: { range: `bytes=${size + 10}-` } });
  assertEquals(outside.status, 416);
  assertEquals(outside.headers.get("x-content-type-options"), "nosniff");
  await outside.body?.cancel();
}

Deno.test(
  "media: a hosted image result is served with nosniff, an empty sandbox and inline filename (200, 206, HEAD)",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images");
    const response = await postJson(s.gw, "/v1/images/generations", s.key, { prompt: "a kite" });
    assertEquals(response.status, 200);
    const url: string = (await response.json()).data[0].url;
    assertEquals(fileOf(url).extension, "png");
    const [bytes] = [...s.openai!.images.values()];
    await assertServedSafely(url, "image/png", bytes.length);
  },
);

Deno.test(
  "media: hosted video and audio references carry the same headers, filename .mp4 / .wav",
  serverTest,
  async () => {
    const fixtures = await mediaFixtures();
    await using s = await setupVideo();
    const response = await s.submit({ model: "vid-2", prompt: "dance", duration: "5" }, [
      { field: "image_1", bytes: solidPng(16, 16, [1, 2, 3, 255]) },
      { field: "video", bytes: fixtures.mp4_3s, filename: "moves.mp4" },
      { field: "audio", bytes: fixtures.wav_2500ms, filename: "beat.wav" },
    ]);
    assertEquals(response.status, 200, await response.clone().text());
    const task = await s.waitForTask((await response.json()).id);
    assertEquals(task.status, "SUCCESS");
    const [upstream] = [...s.ark.tasks.values()];
    const byType = Object.fromEntries(upstream.references.map((ref) => [ref.contentType, ref]));
    assertEquals(Object.keys(byType).sort(), ["audio/wav", "image/png", "video/mp4"]);
    for (const [type, reference] of Object.entries(byType)) {
      await assertServedSafely(reference.url, type, reference.bytes.length);
    }
    assertEquals(fileOf(byType["video/mp4"].url).extension, "mp4");
    assertEquals(fileOf(byType["audio/wav"].url).extension, "wav");
  },
);

Deno.test(
  "media: a stored record of a type the store does not host (an older gateway's text/html) is an octet-stream attachment",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const { kv } = gw.running.gateway;
    const id = "med_" + "h".repeat(32);
    const html = new TextEncoder().encode("<html><script>alert(document.cookie)</script></html>");
    const now = Date.now();
    await kv.set(kvKeys.mediaChunk(id, 0), html);
    await kv.set(kvKeys.media(id), {
      id,
      owner: "gateway",
      content_type: "text/html",
      size: html.length,
      chunks: 1,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + 60_000).toISOString(),
    });
    for (const method of ["GET", "HEAD"]) {
      const response = await fetch(`${gw.url}/media/${id}.html`, { method });
      assertEquals(response.status, 200);
      assertEquals(response.headers.get("content-type"), "application/octet-stream");
      assertEquals(response.headers.get("content-disposition"), `attachment; filename="${id}.bin"`);
      assertEquals(response.headers.get("x-content-type-options"), "nosniff");
      assertEquals(response.headers.get("content-security-policy"), "sandbox; default-src 'none'");
      await response.body?.cancel();
    }
  },
);
