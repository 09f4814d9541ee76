/**
 * The media store judges what it stores from the bytes: the stored type is what they are (never
 * the caller's label), only hosted image, video and audio types are stored, and anything else is
 * refused before a byte is written.
 */

import assert from "node:assert/strict";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import {
  HOSTED_MEDIA_TYPES,
  MediaStore,
  sniffMedia,
  UnhostableMediaError,
} from "../../../core/media/media_store.ts";
import { solidPng, squarePngWithTransparency } from "../../helpers/png_fixtures.ts";
import { HTML_PAYLOAD, SVG_PAYLOAD } from "../../upstream/openai_images.ts";

const FIXTURES = new URL("../../fixtures/media/", import.meta.url);
const text = (value: string) => new TextEncoder().encode(value);

/** Each hosted format, made once with ffmpeg by fixtures/media/hosted/make.sh. */
const HOSTED: Array<[string, string]> = [
  ["image/jpeg", "image.jpg"],
  ["image/webp", "image.webp"],
  ["image/gif", "image.gif"],
  ["image/bmp", "image.bmp"],
  ["image/tiff", "image.tiff"],
  ["video/webm", "video.webm"],
  ["audio/mp4", "audio.m4a"],
  ["audio/aac", "audio.aac"],
  ["audio/ogg", "audio.ogg"],
  ["audio/ogg", "audio.opus"],
];

function made(): Promise<Array<[string, string, Uint8Array]>> {
  return Promise.all(
    HOSTED.map(async ([type, file]) =>
      [type, file, await Deno.readFile(new URL(`hosted/${file}`, FIXTURES))] as [
        string,
        string,
        Uint8Array,
      ]
    ),
  );
}

/** Every key in `kv`. */
async function keyCount(kv: Deno.Kv): Promise<number> {
  let count = 0;
  for await (const _ of kv.list({ prefix: [] })) count++;
  return count;
}

Deno.test("sniffMedia(): every hosted format is recognised from its bytes", async () => {
  const committed: Array<[string, string]> = [
    ["video/mp4", "mp4_faststart.mp4"],
    ["video/mp4", "mp4_fragmented.mp4"],
    ["video/quicktime", "mov_faststart.mov"],
    ["audio/wav", "wav_2500ms.wav"],
    ["audio/mpeg", "mp3_id3v2.mp3"],
    ["audio/mpeg", "mp3_cbr_noxing.mp3"],
  ];
  const cases: Array<[string, string, Uint8Array]> = [
    ["image/png", "png", squarePngWithTransparency(16)],
    ...await Promise.all(
      committed.map(async ([type, file]) =>
        [type, file, await Deno.readFile(new URL(file, FIXTURES))] as [string, string, Uint8Array]
      ),
    ),
    ...await made(),
  ];
  const seen = new Set<string>();
  for (const [type, name, bytes] of cases) {
    assertEquals(
      await sniffMedia(bytes.subarray(0, 4100)),
      { contentType: type, seen: type },
      name,
    );
    seen.add(type);
  }
  assertEquals([...seen].sort(), Object.keys(HOSTED_MEDIA_TYPES).sort());
});

Deno.test("sniffMedia(): markup, text and unknown bytes are refused with what they are", async () => {
  const cases: Array<[string, Uint8Array]> = [
    ["text/html", text(HTML_PAYLOAD)],
    ["text/html", text("\uFEFF  <html><body>hi</body></html>")],
    ["image/svg+xml", text(SVG_PAYLOAD)],
    ["image/svg+xml", text('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>')],
    ["application/xml", text('<?xml version="1.0"?><feed></feed>')],
    ["text/plain", text("not an image at all")],
    ["application/pdf", text("%PDF-1.7\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\n")],
    ["empty", new Uint8Array()],
    ["an unrecognised format", await Deno.readFile(new URL("garbage.bin", FIXTURES))],
  ];
  for (const [seen, bytes] of cases) {
    assertEquals(await sniffMedia(bytes), { contentType: null, seen }, seen);
  }
});

Deno.test("MediaStore.put(): the stored type is the bytes' own, whatever the label", async () => {
  await using kv = await Deno.openKv(":memory:");
  const store = new MediaStore(kv, 60_000);
  const png = solidPng(8, 8, [1, 2, 3, 255]);
  const record = await store.put(png, { contentType: "text/html", owner: "o" });
  assertEquals(record.content_type, "image/png");
  const unlabelled = await store.put(png, { owner: "o" });
  assertEquals(unlabelled.content_type, "image/png");
  assertEquals(await store.read(record), png);
});

Deno.test("MediaStore: HTML or SVG labelled image/png is refused, nothing written", async () => {
  await using kv = await Deno.openKv(":memory:");
  const store = new MediaStore(kv, 60_000);
  for (const [bytes, seen] of [[HTML_PAYLOAD, "text/html"], [SVG_PAYLOAD, "image/svg+xml"]]) {
    await assert.rejects(
      () => store.put(text(bytes), { contentType: "image/png", owner: "o" }),
      (error) => {
        assertOk(error instanceof UnhostableMediaError);
        assertEquals(error.seen, seen);
        assertOk(error.message.includes(`are ${seen} (labelled image/png)`), error.message);
        return true;
      },
    );
  }
  assertEquals(await keyCount(kv), 0);
});

Deno.test("MediaStore.putChunks(): sniffs across small pieces; a refusal ends the source", async () => {
  await using kv = await Deno.openKv(":memory:");
  const store = new MediaStore(kv, 60_000);
  const mp4 = await Deno.readFile(new URL("mp4_faststart.mp4", FIXTURES));
  function* pieces(bytes: Uint8Array, size: number) {
    for (let offset = 0; offset < bytes.length; offset += size) {
      yield bytes.subarray(offset, offset + size);
    }
  }
  const record = await store.putChunks(pieces(mp4, 7), { owner: "gateway" });
  assertEquals(record.content_type, "video/mp4");
  assertEquals(await store.read(record), mp4);
  const before = await keyCount(kv);

  let ended = false;
  async function* html() {
    try {
      yield text("<!DOCTYPE html><html>");
      yield text("<body>" + "x".repeat(10_000) + "</body></html>");
      yield text("never read");
    } finally {
      ended = true;
    }
  }
  await assert.rejects(() => store.putChunks(html(), { owner: "gateway" }), UnhostableMediaError);
  assertOk(ended, "the refused source was not ended");
  assertEquals(await keyCount(kv), before);
});
