/**
 * Keeps tests/fixtures/media/durations.json true: runs the real ffprobe (FFPROBE_PATH, else
 * `ffprobe` on PATH) through probeMedia on every fixture and checks the table's seconds to the
 * millisecond, its stream kinds and its format name, and that the files the table says ffprobe
 * refuses are refused. Ignored, with a line saying so, when there is no ffprobe to run.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ProbeError, probeMedia } from "../../../core/media/ffprobe.ts";

const DIR = new URL("../../fixtures/media/", import.meta.url);
const FFPROBE = Deno.env.get("FFPROBE_PATH") || "ffprobe";

/** The first line of `ffprobe -version`, or undefined when it cannot be run. */
async function ffprobeVersion(): Promise<string | undefined> {
  try {
    const output = await new Deno.Command(FFPROBE, {
      args: ["-version"],
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
    return output.success ? new TextDecoder().decode(output.stdout).split("\n")[0] : undefined;
  } catch {
    return undefined;
  }
}

const version = await ffprobeVersion();
if (!version) {
  console.log("ffprobe agreement test ignored: ffprobe not found (apt-get install ffmpeg)");
}

const table: {
  ffprobe: string;
  files: Record<string, { ffprobeSeconds: number | null; formatName: string; streams: string[] }>;
} = JSON.parse(await Deno.readTextFile(new URL("durations.json", DIR)));

Deno.test({
  name: "ffprobe agrees with durations.json on every media fixture",
  ignore: !version,
  fn: async () => {
    const differences: string[] = [];
    for (const [file, row] of Object.entries(table.files)) {
      let probed: Awaited<ReturnType<typeof probeMedia>> | undefined;
      try {
        probed = await probeMedia(FFPROBE, new URL(file, DIR).pathname);
      } catch (error) {
        assertOk(error instanceof ProbeError, `${file}: ${error}`);
        assertOk(!error.unavailable, `${file}: ${error.message}`);
        if (row.ffprobeSeconds !== null) differences.push(`${file}: refused (${error.message})`);
        continue;
      }
      if (row.ffprobeSeconds === null) {
        differences.push(`${file}: the table says refused, ffprobe reads ${probed.seconds} s`);
        continue;
      }
      if (Math.round(probed.seconds * 1000) !== Math.round(row.ffprobeSeconds * 1000)) {
        differences.push(`${file}: ffprobe ${probed.seconds} s, table ${row.ffprobeSeconds} s`);
      }
      if (JSON.stringify(probed.streams) !== JSON.stringify(row.streams)) {
        differences.push(`${file}: streams ${probed.streams}, table ${row.streams}`);
      }
      if (probed.formatName !== row.formatName) {
        differences.push(`${file}: format ${probed.formatName}, table ${row.formatName}`);
      }
    }
    // MP4 format durations differ between ffmpeg versions (5.1 takes the movie header's; later
    // ones compute it from the streams), so name both versions when they disagree.
    assertEquals(
      differences,
      [],
      `ffprobe (${version}) disagrees with durations.json, made with ffprobe ${table.ffprobe} ` +
        `(whose rules the in-process reader follows):\n${differences.join("\n")}`,
    );
  },
});
