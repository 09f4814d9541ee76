/**
 * The gateway's two duration readers bill the same: on every file of the corpus (forged headers
 * and cut WAVs included), ffprobe as the gateway runs it and the in-process reader give the same
 * seconds to the millisecond, or both refuse the file, except where a difference is named here
 * with its reason. Needs ffprobe; ignored, with one line saying so, without it.
 */

import { assertEquals } from "../../helpers/assert.ts";
import { findFfprobe } from "../../helpers/external_tools.ts";
import { contentTypeOf, DURATIONS, mediaFixture } from "../../helpers/media_tools.ts";
import { tempDir } from "../../helpers/temp_dir.ts";
import { readDurationFromBytes } from "../../../core/media/duration_reader.ts";
import { type ProbedMedia, ProbeError, probeMediaBytes } from "../../../core/media/ffprobe.ts";

const ffprobe = await findFfprobe();

/** The files the readers answer differently, each with why that is right. */
const KNOWN_DIFFERENCES: Record<string, string> = {
  "mp3_vbr_noheader.mp3":
    "ffprobe estimates a VBR MP3 without a Xing/VBRI header from a bit rate; the reader counts frames",
  "wav_adpcm.wav": "the reader reads PCM WAV only; ffprobe reads ADPCM",
  "truncated_mp4_moov.mp4": "ffprobe reads what it can of a cut moov; the reader refuses it",
  "truncated_mp4_faststart_mdat.mp4":
    "ffprobe reads the complete moov of a file whose samples are cut; the reader refuses it",
  "truncated_mp4_fragmented.mp4": "ffprobe reads the fragments present; the reader refuses it",
  "truncated_mp3.mp3": "ffprobe reads the Info header of a cut MP3; the reader refuses it",
  "truncated_mp3_vbr.mp3": "ffprobe reads the Xing header of a cut MP3; the reader refuses it",
};

async function answer(read: Promise<ProbedMedia>): Promise<string> {
  try {
    return `${Math.round((await read).seconds * 1000) / 1000} s`;
  } catch (error) {
    if (error instanceof ProbeError && !error.unavailable) return "refused";
    throw error;
  }
}

ffprobe.test("both duration readers agree on the corpus, forged and cut files too", async (path) => {
  await using dir = await tempDir();
  const differences: Record<string, string> = {};
  const agreed: string[] = [];
  for (const file of Object.keys(DURATIONS.files)) {
    const contentType = contentTypeOf(file);
    const bytes = mediaFixture(file);
    const inProcess = await answer(readDurationFromBytes(bytes, { contentType }));
    const withFfprobe = await answer(
      probeMediaBytes(path, bytes, { contentType, tempDir: dir.path }),
    );
    if (inProcess === withFfprobe) agreed.push(file);
    else differences[file] = `in process ${inProcess}, ffprobe ${withFfprobe}`;
  }
  assertEquals(
    Object.keys(differences).sort(),
    Object.keys(KNOWN_DIFFERENCES).sort(),
    `the readers differ on: ${JSON.stringify(differences, null, 2)}`,
  );
  // The forged files and the cut WAV are among those they agree on.
  for (const file of Object.keys(DURATIONS.files)) {
    const row = DURATIONS.files[file];
    if (row.reader === "samples" || row.bothRefuse) assertEquals(agreed.includes(file), true, file);
  }
});

ffprobe.reportIgnored("tests/core/media/duration_agreement_test.ts");
