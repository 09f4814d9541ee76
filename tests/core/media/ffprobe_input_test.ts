/**
 * How the gateway hands media to ffprobe, decided from the box structure alone (no ffprobe
 * needed): a pipe for MP4/MOV without fragments, a file for the rest (ffprobe on a pipe answers
 * N/A for WAV and MP3, and only the first fragments' length for a fragmented MP4).
 */

import { assertEquals } from "../../helpers/assert.ts";
import { contentTypeOf, DURATIONS, MEDIA_DIR, mediaFixture } from "../../helpers/media_tools.ts";
import { needsSeeking } from "../../../core/media/ffprobe.ts";

// A truncated box structure (truncated_mp4_faststart_mdat.mp4) goes to ffprobe as a file too.
Deno.test("needsSeeking: a pipe only for MP4/MOV without fragments, from bytes or a file", async () => {
  const piped: string[] = [];
  for (const file of Object.keys(DURATIONS.files)) {
    const bytes = mediaFixture(file);
    const fromBytes = await needsSeeking(bytes, contentTypeOf(file));
    const fromFile = await needsSeeking(new URL(file, MEDIA_DIR).pathname, contentTypeOf(file));
    assertEquals(fromFile, fromBytes, file);
    if (!fromBytes) piped.push(file);
  }
  assertEquals(piped.sort(), [
    "forged_audio_60s.mp4",
    "forged_headers_60s.mp4",
    "forged_mvhd_15s.mp4",
    "forged_mvhd_60s.mp4",
    "mov_3s.mov",
    "mov_faststart.mov",
    "mov_phone.mov",
    "mp4_20s.mp4",
    "mp4_3s.mp4",
    "mp4_audio_longer.mp4",
    "mp4_audio_only.mp4",
    "mp4_bframes.mp4",
    "mp4_delayed_audio.mp4",
    "mp4_faststart.mp4",
  ]);
});
