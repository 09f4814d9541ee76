/**
 * Everything that runs the real ffprobe (FFPROBE_PATH, else `ffprobe` on PATH); ignored, with
 * one line saying so, where there is none (GATEWAY_TEST_STRICT=1 makes that a failure).
 *
 * - durations.json stays true: ffprobe by path on every fixture gives the table's seconds to the
 *   millisecond, its stream kinds and format name, and refuses what the table says it refuses;
 * - the gateway's way of running it (a pipe for MP4/MOV without fragments, a temp file for the
 *   rest) gives the same answers, and the temp file is gone after an answer, an error and a kill;
 * - a gateway that has ffprobe bills with it, as the table says, and falls back to the in-process
 *   reader when ffprobe disappears.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { findFfprobe } from "../../helpers/external_tools.ts";
import { contentTypeOf, DURATIONS, MEDIA_DIR, mediaFixture } from "../../helpers/media_tools.ts";
import {
  needsSeeking,
  type ProbedMedia,
  ProbeError,
  probeMedia,
  probeMediaBytes,
  probeMediaFile,
} from "../../../core/media/ffprobe.ts";
import { DurationReaders } from "../../../core/media/media_duration.ts";
import { serverTest } from "../../helpers/gateway.ts";
import { solidPng } from "../../helpers/png_fixtures.ts";
import { PER_SECOND, setupVideo } from "../../helpers/video_setup.ts";
import { tempDir } from "../../helpers/temp_dir.ts";

const ffprobe = await findFfprobe();

/** The files whose duration fields were forged, or that the gateway refuses with ffprobe too. */
function forged(file: string): boolean {
  const row = DURATIONS.files[file];
  return row.reader === "samples" || row.bothRefuse === true;
}

/**
 * What the gateway's ffprobe reader gives for `file`: ffprobe's seconds, but the samples' for a
 * forged file, and a refusal where the table says both readers refuse.
 */
function gatewaySeconds(file: string): number | null {
  const row = DURATIONS.files[file];
  if (row.bothRefuse) return null;
  return row.reader === "samples" ? row.readerSeconds! : row.ffprobeSeconds;
}

/** Differences between what ffprobe answered and the table, one line each. */
function compare(
  file: string,
  probed: ProbedMedia | ProbeError,
  expected = DURATIONS.files[file].ffprobeSeconds,
): string[] {
  const row = DURATIONS.files[file];
  if (probed instanceof ProbeError) {
    if (probed.unavailable) return [`${file}: ${probed.message}`];
    return expected === null ? [] : [`${file}: refused (${probed.message})`];
  }
  if (expected === null) {
    return [`${file}: the table says refused, ffprobe reads ${probed.seconds} s`];
  }
  const out: string[] = [];
  if (Math.round(probed.seconds * 1000) !== Math.round(expected * 1000)) {
    out.push(`${file}: ffprobe ${probed.seconds} s, table ${expected} s`);
  }
  if (JSON.stringify(probed.streams) !== JSON.stringify(row.streams)) {
    out.push(`${file}: streams ${probed.streams}, table ${row.streams}`);
  }
  if (probed.formatName !== row.formatName) {
    out.push(`${file}: format ${probed.formatName}, table ${row.formatName}`);
  }
  return out;
}

async function settled(work: Promise<ProbedMedia>): Promise<ProbedMedia | ProbeError> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof ProbeError) return error;
    throw error;
  }
}

/** MP4 durations differ between ffmpeg versions: name both when they disagree. */
function agreement(differences: string[]): void {
  assertEquals(
    differences,
    [],
    `ffprobe (${ffprobe.version}) disagrees with durations.json, made with ffprobe ` +
      `${DURATIONS.ffprobe} (whose rules the in-process reader follows):\n${
        differences.join("\n")
      }`,
  );
}

ffprobe.test("ffprobe agrees with durations.json on every media fixture", async (path) => {
  const differences: string[] = [];
  // The forged files: ffprobe alone believes some of their fields (the table's seconds are its
  // format duration); the gateway's ways in, below, measure their samples.
  for (const file of Object.keys(DURATIONS.files).filter((file) => !forged(file))) {
    differences.push(
      ...compare(file, await settled(probeMedia(path, new URL(file, MEDIA_DIR).pathname))),
    );
  }
  agreement(differences);
});

ffprobe.test(
  "ffprobe as the gateway runs it (a pipe for MP4/MOV without fragments, else a file) agrees too, measuring forged files by their samples",
  async (path) => {
    await using dir = await tempDir();
    const differences: string[] = [];
    for (const file of Object.keys(DURATIONS.files)) {
      const contentType = contentTypeOf(file);
      // From bytes in memory (a temp file where needed), and from an upload on disk.
      const fromBytes = await settled(probeMediaBytes(path, mediaFixture(file), {
        contentType,
        tempDir: dir.path,
      }));
      differences.push(...compare(file, fromBytes, gatewaySeconds(file)));
      const onDisk = new URL(file, MEDIA_DIR).pathname;
      differences.push(
        ...compare(
          file,
          await settled(probeMediaFile(path, onDisk, { contentType })),
          gatewaySeconds(file),
        ),
      );
    }
    agreement(differences);
    assertEquals([...Deno.readDirSync(dir.path)], [], "a temp file was left behind");
  },
);

ffprobe.test("the temp file is removed after an answer, an error and a kill", async (path) => {
  await using dir = await tempDir();
  const left = () => [...Deno.readDirSync(dir.path)].map((entry) => entry.name);
  const wav = mediaFixture("wav_2500ms.wav");
  assertOk(await needsSeeking(wav, "audio/wav"));
  const read = await probeMediaBytes(path, wav, { contentType: "audio/wav", tempDir: dir.path });
  assertEquals(read.seconds, 2.5);
  assertEquals(left(), []);
  const garbage = await settled(probeMediaBytes(path, mediaFixture("garbage.bin"), {
    contentType: "audio/wav",
    tempDir: dir.path,
  }));
  assertOk(garbage instanceof ProbeError && !garbage.unavailable, String(garbage));
  assertEquals(left(), []);
  // Killed: ffprobe gets 1 ms, far less than it needs to start.
  const killed = await settled(probeMediaBytes(path, wav, {
    contentType: "audio/wav",
    tempDir: dir.path,
    timeoutMs: 1,
  }));
  assertOk(killed instanceof ProbeError, String(killed));
  assertOk(/took longer|failed/.test(killed.message), killed.message);
  assertOk(/ffprobe (killed|did not finish)/.test(killed.detail ?? ""), killed.detail);
  assertEquals(left(), []);
  // A pipe makes no file at all, also when ffprobe is killed.
  const mp4 = mediaFixture("mp4_3s.mp4");
  assertOk(!(await needsSeeking(mp4, "video/mp4")));
  const piped = await settled(probeMediaBytes(path, mp4, {
    contentType: "video/mp4",
    tempDir: dir.path,
    timeoutMs: 1,
  }));
  assertOk(piped instanceof ProbeError, String(piped));
  assertEquals(left(), []);
});

ffprobe.test("probeMedia: durations and stream kinds of real files; corrupt files", async (path) => {
  const mp4 = await probeMedia(path, new URL("mp4_3s.mp4", MEDIA_DIR).pathname);
  assertEquals([mp4.seconds, mp4.streams], [3, ["video"]]);
  const wav = await probeMedia(path, new URL("wav_2500ms.wav", MEDIA_DIR).pathname);
  assertEquals([wav.seconds, wav.streams], [2.5, ["audio"]]);
  const corruptPath = new URL("corrupt_mp4.mp4", MEDIA_DIR).pathname;
  const corrupt = await settled(probeMedia(path, corruptPath));
  assertOk(corrupt instanceof ProbeError && !corrupt.unavailable, String(corrupt));
  // ffprobe's words name the file it read: they are the log's detail, never the message.
  assertEquals([corrupt.problem, corrupt.message.includes("/")], ["not_media", false]);
  assertOk(corrupt.detail?.includes(corruptPath), corrupt.detail);
});

ffprobe.test("DurationReaders: ffprobe while it is there, in process once it is gone", async (path) => {
  await using dir = await tempDir();
  const copy = `${dir.path}/ffprobe`;
  await Deno.copyFile(path, copy);
  await Deno.chmod(copy, 0o755);
  const lines: Array<Record<string, unknown>> = [];
  const readers = new DurationReaders({
    ffprobePath: copy,
    runFfprobe: true,
    tempFiles: true,
    log: (line) => lines.push(line),
  });
  const sources = ["mp4_3s.mp4", "wav_2500ms.wav", "mp3_2s.mp3"].map((file) => ({
    contentType: contentTypeOf(file),
    bytes: mediaFixture(file),
  }));
  const first = await readers.readAll(sources);
  assertEquals(first.reader, "ffprobe");
  assertEquals(first.media.map((media) => media.seconds), [3, 2.5, 2.088]);
  await Deno.remove(copy);
  const second = await readers.readAll(sources);
  assertEquals(second.reader, "in-process");
  assertEquals(second.media.map((media) => media.seconds), [3, 2.5, 2.088]);
  assertEquals(lines.map((line) => line.reader), ["ffprobe", "in-process"]);
  assertOk(String(lines[1].why).includes("not found"), JSON.stringify(lines[1]));
});

ffprobe.test(
  "video: a gateway with ffprobe bills each reference kind as durations.json says",
  async (path) => {
    await using s = await setupVideo({ env: { FFPROBE_PATH: path } });
    const png = solidPng(8, 8, [1, 2, 3, 255]);
    const cases: Array<[string, string]> = [
      ["video", "mp4_3s.mp4"],
      ["video", "mp4_faststart.mp4"],
      ["video", "mp4_fragmented.mp4"],
      ["video", "mov_3s.mov"],
      ["audio", "wav_2500ms.wav"],
      ["audio", "mp3_2s.mp3"],
    ];
    for (const [field, file] of cases) {
      const billedMs = 5000 + Math.round(DURATIONS.files[file].ffprobeSeconds! * 1000);
      const files = [{ field, bytes: mediaFixture(file), filename: file }];
      if (field === "audio") files.unshift({ field: "image_1", bytes: png, filename: "a.png" });
      const response = await s.submit({ model: "vid-2", prompt: file }, files);
      const body = await response.json();
      assertEquals(response.status, 200, `${file}: ${JSON.stringify(body)}`);
      assertEquals(response.headers.get("x-gateway-duration-reader"), "ffprobe", file);
      assertEquals(response.headers.get("x-gateway-billed-seconds"), String(billedMs / 1000));
      assertEquals(
        response.headers.get("x-gateway-cost-units"),
        String(Math.ceil(PER_SECOND * billedMs / 1000)),
        file,
      );
    }
  },
  serverTest,
);

ffprobe.reportIgnored("tests/core/media/ffprobe_test.ts");
