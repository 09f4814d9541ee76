import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { mediaFixtures } from "../../helpers/media_tools.ts";
import { solidPng } from "../../helpers/png_fixtures.ts";
import { checkReferenceFile, extensionOf } from "../../../core/video/reference_media.ts";
import { ProbeError, probeMedia } from "../../../core/media/ffprobe.ts";

const fixtures = mediaFixtures();

async function kindOf(field: string, kind: "image" | "video" | "audio", bytes: Uint8Array) {
  return await checkReferenceFile(field, {
    kind,
    head: bytes.subarray(0, 4100),
    size: bytes.length,
  });
}

Deno.test("checkReferenceFile: formats judged from the bytes", async () => {
  assertEquals(await kindOf("image_1", "image", solidPng(4, 4, [1, 2, 3, 255])), {
    contentType: "image/png",
  });
  assertEquals(await kindOf("video", "video", fixtures.mp4_3s), { contentType: "video/mp4" });
  assertEquals(await kindOf("audio", "audio", fixtures.wav_2500ms), { contentType: "audio/wav" });
  assertEquals(await kindOf("audio", "audio", fixtures.mp3_2s), { contentType: "audio/mpeg" });
  const wrong = await kindOf("video", "video", fixtures.wav_2500ms);
  assertOk("refused" in wrong && wrong.refused.includes("audio/wav"));
  const unknown = await kindOf("image_1", "image", new TextEncoder().encode("hello"));
  assertOk("refused" in unknown && unknown.refused.includes("not recognised"));
});

Deno.test("checkReferenceFile: size limits per kind and empty files", async () => {
  const big = await checkReferenceFile("audio", {
    kind: "audio",
    head: fixtures.wav_2500ms,
    size: 16 * 1024 * 1024,
  });
  assertOk("refused" in big && big.refused.includes("at most 15 MB"));
  const empty = await checkReferenceFile("image_1", {
    kind: "image",
    head: new Uint8Array(0),
    size: 0,
  });
  assertOk("refused" in empty && empty.refused.includes("empty"));
  assertEquals(extensionOf("video/quicktime"), "mov");
  assertEquals(extensionOf("audio/mpeg"), "mp3");
  assertEquals(extensionOf("image/png"), "png");
});

Deno.test("probeMedia: a missing ffprobe is a ProbeError that says it is unavailable", async () => {
  let error: unknown;
  try {
    await probeMedia(
      "/nonexistent/ffprobe",
      new URL("../../fixtures/media/mp4_3s.mp4", import.meta.url).pathname,
    );
  } catch (caught) {
    error = caught;
  }
  assertOk(error instanceof ProbeError && error.unavailable, String(error));
});
