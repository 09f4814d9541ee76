/** The WAV chunk walk both duration readers share: what it measures and what it refuses. */

import assert from "node:assert/strict";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { mediaFixture } from "../../helpers/media_tools.ts";
import { ProbeError } from "../../../core/media/probe_error.ts";
import { readWavLayout, WAV_HEADER_BYTES } from "../../../core/media/wav_layout.ts";

function refused(work: () => unknown, reason: RegExp): void {
  assert.throws(work, (error) => {
    assertOk(error instanceof ProbeError, String(error));
    assertOk(reason.test(error.message), error.message);
    return true;
  });
}

/** `wav` with the 16-bit little-endian `value` at byte `at`. */
function patched(wav: Uint8Array, at: number, value: number, bytes = 2): Uint8Array {
  const copy = wav.slice();
  const view = new DataView(copy.buffer);
  if (bytes === 2) view.setUint16(at, value, true);
  else view.setUint32(at, value, true);
  return copy;
}

Deno.test("readWavLayout: the data present, from the whole file or its head and size", () => {
  const wav = mediaFixture("wav_2500ms.wav");
  assertEquals(readWavLayout(wav).dataBytes, 80_000);
  assertEquals(readWavLayout(wav.subarray(0, 64), wav.length).dataBytes, 80_000);
  // Written to a pipe: the data runs to the end, and its byte rate is the samples'.
  assertEquals(readWavLayout(mediaFixture("wav_pipe.wav")).dataBytes, 35_200);
});

Deno.test("readWavLayout: refuses a cut data chunk, whatever its byte rate says", () => {
  const cut = mediaFixture("truncated_wav.wav");
  refused(() => readWavLayout(cut), /truncated: its data chunk declares 80000 bytes, 39979/);
  refused(() => readWavLayout(patched(cut, 28, 1_024_000, 4)), /truncated/);
});

Deno.test("readWavLayout: an open-ended data chunk needs PCM and the samples' byte rate", () => {
  const pipe = mediaFixture("wav_pipe.wav");
  refused(() => readWavLayout(patched(pipe, 28, 16_000, 4)), /byte rate \(16000\)/);
  refused(() => readWavLayout(patched(pipe, 20, 2)), /not PCM/); // format tag 2: MS ADPCM
  // A declared, complete data chunk is measured by its size: its byte rate does not matter.
  const wav = mediaFixture("wav_2500ms.wav");
  assertEquals(readWavLayout(patched(wav, 28, 16_000, 4)).dataBytes, 80_000);
});

Deno.test("readWavLayout: a data chunk must start within the first WAV_HEADER_BYTES", () => {
  const wav = mediaFixture("wav_2500ms.wav");
  // A 'junk' chunk of WAV_HEADER_BYTES between the fmt chunk and the data.
  const junk = new Uint8Array(8 + WAV_HEADER_BYTES);
  junk.set(new TextEncoder().encode("junk"));
  new DataView(junk.buffer).setUint32(4, WAV_HEADER_BYTES, true);
  const big = new Uint8Array(wav.length + junk.length);
  big.set(wav.subarray(0, 36));
  big.set(junk, 36);
  big.set(wav.subarray(36), 36 + junk.length);
  refused(() => readWavLayout(big), /does not start in its first/);
});
