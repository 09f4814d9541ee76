/** The rule both duration readers bill an MP4 by: the header, unless the samples last longer. */

import { assertEquals } from "../../helpers/assert.ts";
import { mediaFixture } from "../../helpers/media_tools.ts";
import {
  ENCODER_SLACK_SECONDS,
  longestPlausible,
  moovSampleSeconds,
} from "../../../core/media/mp4_sample_lengths.ts";

Deno.test("longestPlausible: the header unless a track lasts longer by more than the slack", () => {
  assertEquals(ENCODER_SLACK_SECONDS, 0.25);
  assertEquals(longestPlausible(2, []), 2);
  assertEquals(longestPlausible(2, [2.25, 1]), 2);
  assertEquals(longestPlausible(2, [2.251, 60, 3]), 60);
  assertEquals(longestPlausible(0, [0.2]), 0);
  assertEquals(longestPlausible(9, [2]), 9);
});

/** The moov box of an MP4 fixture, header included. */
function moovOf(file: string): Uint8Array {
  const bytes = mediaFixture(file);
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  for (let at = 0; at + 8 <= bytes.length; at += view.getUint32(at)) {
    if (new TextDecoder().decode(bytes.subarray(at + 4, at + 8)) === "moov") {
      return bytes.subarray(at, at + view.getUint32(at));
    }
  }
  throw new Error(`${file}: no moov`);
}

Deno.test("moovSampleSeconds: each track's samples, less an edit list's priming trim", () => {
  // 2 s of video; 2 s of AAC after 1,024 priming samples its edit list trims (stts and mdhd).
  assertEquals(moovSampleSeconds(moovOf("mp4_faststart.mp4")), [2, 2, 2, 2]);
  // The audio starts 0.453 s late (an empty edit), lasts 2.046 s (its edit trims no priming).
  assertEquals(moovSampleSeconds(moovOf("mp4_delayed_audio.mp4")), [2, 2, 2.49944, 2.49944]);
  // Forged: every header and the edit list say 2 s; the stts says 60 s, the mdhd 2 s.
  assertEquals(moovSampleSeconds(moovOf("forged_headers_60s.mp4")), [60, 2]);
  // Forged: the audio's headers say 3 s (2.872 s after its priming); its samples last 60 s.
  assertEquals(moovSampleSeconds(moovOf("forged_audio_60s.mp4")), [3, 3, 60, 2.872]);
  // Fragmented: the moov holds no sample.
  assertEquals(moovSampleSeconds(moovOf("mp4_fragmented.mp4")), []);
});
