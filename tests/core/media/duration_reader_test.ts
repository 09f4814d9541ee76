/**
 * The in-process duration reader against the committed corpus: for every fixture it gives the
 * seconds ffprobe reports (durations.json) to the millisecond billing rounds to, the same stream
 * kinds and format name; it refuses garbage and truncated files with a ProbeError that says why.
 * Needs no ffprobe (ffprobe_agreement_test.ts checks the table against the real one).
 */

import assert from "node:assert/strict";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { readDurationFromBytes } from "../../../core/media/duration_reader.ts";
import { ProbeError } from "../../../core/media/ffprobe.ts";

const DIR = new URL("../../fixtures/media/", import.meta.url);

interface FixtureRow {
  ffprobeSeconds: number | null;
  formatName: string | null;
  streams: string[];
  /** duration: same as ffprobe to the ms; refuse: ProbeError; frames, samples: readerSeconds. */
  reader: "duration" | "refuse" | "frames" | "samples";
  readerSeconds?: number;
  bytes: number;
  description: string;
}

const table: { ffprobe: string; files: Record<string, FixtureRow> } = JSON.parse(
  await Deno.readTextFile(new URL("durations.json", DIR)),
);

const CONTENT_TYPES: Record<string, string> = {
  mp4: "video/mp4",
  mov: "video/quicktime",
  wav: "audio/wav",
  mp3: "audio/mpeg",
};

function contentTypeOf(file: string): string {
  return CONTENT_TYPES[file.split(".").pop()!] ?? "video/mp4";
}

function fixture(file: string): Promise<Uint8Array> {
  return Deno.readFile(new URL(file, DIR));
}

/** What billing charges for a reference: its seconds rounded to the millisecond. */
function billedMs(seconds: number): number {
  return Math.round(seconds * 1000);
}

/** Why each refused fixture is refused: the message must say so. */
const REFUSALS: Record<string, RegExp> = {
  "garbage.bin": /not an MP4 or MOV file/,
  "corrupt_mp4.mp4": /no moov box/,
  "truncated_mp4_moov.mp4": /truncated: box 'moov'/,
  "truncated_mp4_mdat.mp4": /truncated: box 'mdat'/,
  "truncated_mp4_faststart_mdat.mp4": /truncated: box 'mdat'/,
  "truncated_mp4_fragmented.mp4": /truncated/,
  "truncated_wav.wav": /WAV file is truncated: its data chunk declares 80000 bytes/,
  "truncated_wav_header.wav": /fmt chunk is too short/,
  "truncated_mp3.mp3": /MP3 file is truncated/,
  "truncated_mp3_vbr.mp3": /MP3 file is truncated/,
  "wav_adpcm.wav": /not PCM/,
  "forged_rate_wav_pipe.wav":
    /byte rate \(1024000\) is not its sample rate × channels × sample size \(32000\)/,
};

async function assertRefused(bytes: Uint8Array, contentType: string, reason: RegExp) {
  await assert.rejects(readDurationFromBytes(bytes, { contentType }), (error) => {
    assertOk(error instanceof ProbeError, `expected a ProbeError, got ${error}`);
    assertOk(reason.test(error.message), `message '${error.message}' does not match ${reason}`);
    assertEquals(error.unavailable, false);
    return true;
  });
}

for (const [file, row] of Object.entries(table.files)) {
  if (row.reader === "refuse") {
    Deno.test(`readDurationFromBytes: refuses ${file} (${row.description})`, async () => {
      const reason = REFUSALS[file];
      assertOk(reason, `durations.json refuses ${file}; say why in REFUSALS`);
      await assertRefused(await fixture(file), contentTypeOf(file), reason);
    });
    continue;
  }
  Deno.test(`readDurationFromBytes: ${file} (${row.description})`, async () => {
    const read = await readDurationFromBytes(await fixture(file), {
      contentType: contentTypeOf(file),
    });
    const expected = row.readerSeconds ?? row.ffprobeSeconds!;
    assertEquals(
      billedMs(read.seconds),
      billedMs(expected),
      `${file}: in process ${read.seconds} s, expected ${expected} s`,
    );
    assertEquals(read.streams, row.streams);
    assertEquals(read.formatName, row.formatName);
  });
}

Deno.test("durations.json lists every fixture in the folder and nothing else", async () => {
  const files: string[] = [];
  for await (const entry of Deno.readDir(DIR)) {
    if (
      entry.isFile &&
      !["README.md", "durations.json", "make_fixtures.sh", "forge_durations.ts"].includes(
        entry.name,
      )
    ) {
      files.push(entry.name);
    }
  }
  assertEquals(files.sort(), Object.keys(table.files).sort());
  for (const [file, row] of Object.entries(table.files)) {
    assertEquals((await Deno.stat(new URL(file, DIR))).size, row.bytes, `${file}: size`);
  }
});

Deno.test("the corpus stays small: under 2 MB in all", async () => {
  let total = 0;
  for (const dir of [DIR, new URL("hosted/", DIR)]) {
    for await (const entry of Deno.readDir(dir)) {
      total += (await Deno.stat(new URL(entry.name, dir))).size;
    }
  }
  assertOk(total < 2 * 1024 * 1024, `the media fixtures take ${total} bytes`);
});

Deno.test("readDurationFromBytes: garbage is refused whatever content type it claims", async () => {
  const garbage = await fixture("garbage.bin");
  await assertRefused(garbage, "video/mp4", /not an MP4 or MOV file/);
  await assertRefused(garbage, "video/quicktime", /not an MP4 or MOV file/);
  await assertRefused(garbage, "audio/wav", /not a WAV file/);
  await assertRefused(garbage, "audio/mpeg", /no MPEG audio frame/);
});

Deno.test("readDurationFromBytes: a file of another format than its content type is refused", async () => {
  await assertRefused(await fixture("wav_2500ms.wav"), "video/mp4", /not an MP4 or MOV file/);
  await assertRefused(await fixture("mp4_3s.mp4"), "audio/wav", /not a WAV file/);
  await assertRefused(await fixture("mp4_3s.mp4"), "audio/mpeg", /no MPEG audio frame/);
});

Deno.test("readDurationFromBytes: empty files, unknown content types", async () => {
  await assertRefused(new Uint8Array(0), "video/mp4", /empty/);
  await assertRefused(await fixture("mp4_3s.mp4"), "image/png", /cannot be read here/);
  // Content types are matched without their parameters and case.
  const read = await readDurationFromBytes(await fixture("wav_2500ms.wav"), {
    contentType: "Audio/WAV; codecs=1",
  });
  assertEquals(read.seconds, 2.5);
});

/** `bytes` with the 32-bit big-endian value at the box `type`'s `field` (bytes after its type). */
function patchBox(bytes: Uint8Array, type: string, field: number, value: number): Uint8Array {
  const copy = bytes.slice();
  const text = new TextDecoder("latin1").decode(copy);
  const at = text.indexOf(type);
  assertOk(at > 0, `no '${type}' box`);
  new DataView(copy.buffer).setUint32(at + 4 + field, value);
  return copy;
}

Deno.test("readDurationFromBytes: MP4 takes the movie header's duration, as ffprobe 5.1 does", async () => {
  const mp4 = await fixture("mp4_faststart.mp4");
  // mvhd: version+flags (4), creation (4), modification (4), timescale (4), duration (4).
  const longer = patchBox(mp4, "mvhd", 16, 2345);
  assertEquals((await readDurationFromBytes(longer, { contentType: "video/mp4" })).seconds, 2.345);
  const timescale = patchBox(patchBox(mp4, "mvhd", 12, 600), "mvhd", 16, 1190);
  assertEquals(
    (await readDurationFromBytes(timescale, { contentType: "video/mp4" })).seconds,
    1.983333,
  );
  // ffprobe 5.1's format duration is 0 s for a movie header duration of 0; the samples say 2 s.
  const zero = patchBox(mp4, "mvhd", 16, 0);
  assertEquals((await readDurationFromBytes(zero, { contentType: "video/mp4" })).seconds, 2);
});

Deno.test("readDurationFromBytes: MP4 samples count when they outlast the header by over 0.25 s", async () => {
  // mp4_faststart: 2 s of video (10240 ticks a second) and AAC (1,024 priming samples at
  // 22,050 Hz, trimmed by the edit list). The movie header's timescale is 1000.
  const mp4 = await fixture("mp4_faststart.mp4");
  const read = async (bytes: Uint8Array) =>
    (await readDurationFromBytes(bytes, { contentType: "video/mp4" })).seconds;
  // Within the slack, the header stands (what ffprobe 5.1 reports).
  assertEquals(await read(patchBox(mp4, "mvhd", 16, 1800)), 1.8);
  // Beyond it, the longest track's samples (the audio's, less its 1,024 priming samples).
  assertEquals(await read(patchBox(mp4, "mvhd", 16, 1700)), 2);
  // A header longer than the samples is believed: the client pays for what it says.
  assertEquals(await read(patchBox(mp4, "mvhd", 16, 9000)), 9);
});

Deno.test("readDurationFromBytes: junk after the last MP4 box is ignored", async () => {
  const mp4 = await fixture("mp4_3s.mp4");
  const padded = new Uint8Array(mp4.length + 13);
  padded.set(mp4);
  const read = await readDurationFromBytes(padded, { contentType: "video/mp4" });
  assertEquals(read.seconds, 3);
});

Deno.test("readDurationFromBytes: a WAV data chunk cut by one byte is truncated", async () => {
  const wav = await fixture("wav_8k_u8.wav");
  await assertRefused(wav.subarray(0, wav.length - 1), "audio/wav", /truncated/);
});

Deno.test("readDurationFromBytes: an MP3 cut at a frame boundary is caught by its Info header", async () => {
  const mp3 = await fixture("mp3_cbr_44k.mp3");
  // 44.1 kHz, 64 kb/s frames are 208 or 209 bytes: find a frame start near the middle.
  let cut = Math.floor(mp3.length / 2);
  while (!(mp3[cut] === 0xff && (mp3[cut + 1] & 0xe0) === 0xe0)) cut++;
  await assertRefused(mp3.subarray(0, cut), "audio/mpeg", /Info header declares \d+ frames/);
});

Deno.test("readDurationFromBytes: seconds are what billing rounds, never NaN", async () => {
  for (const [file, row] of Object.entries(table.files)) {
    if (row.reader === "refuse") continue;
    const { seconds } = await readDurationFromBytes(await fixture(file), {
      contentType: contentTypeOf(file),
    });
    assertOk(Number.isFinite(seconds) && seconds > 0, `${file}: ${seconds}`);
    // ffprobe prints microseconds; the reader gives the same precision.
    assertEquals(Math.round(seconds * 1e6) / 1e6, seconds);
  }
});
