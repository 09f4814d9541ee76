/**
 * ffmpeg and ffprobe for the tests: FFMPEG_PATH / FFPROBE_PATH, else the copies `.ci/media-tools`
 * installs from npm, else the names on PATH. Fixtures are made once per test process.
 */

const ROOT = new URL("../../", import.meta.url).pathname;
const NPM_TOOLS = `${ROOT}.ci/.tools/media/node_modules`;

function toolPath(envName: string, npmPath: string, name: string): string {
  const fromEnv = Deno.env.get(envName);
  if (fromEnv) return fromEnv;
  try {
    Deno.statSync(npmPath);
    return npmPath;
  } catch {
    return name;
  }
}

export const FFPROBE = toolPath(
  "FFPROBE_PATH",
  `${NPM_TOOLS}/@ffprobe-installer/linux-x64/ffprobe`,
  "ffprobe",
);
export const FFMPEG = toolPath(
  "FFMPEG_PATH",
  `${NPM_TOOLS}/@ffmpeg-installer/linux-x64/ffmpeg`,
  "ffmpeg",
);

async function ffmpeg(args: string[]): Promise<void> {
  const output = await new Deno.Command(FFMPEG, {
    args: ["-v", "error", "-y", ...args],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(`ffmpeg ${args.join(" ")}: ${new TextDecoder().decode(output.stderr)}`);
  }
}

export interface MediaFixtures {
  /** MP4 (H.264), exactly 3 s. */
  mp4_3s: Uint8Array;
  /** MP4 of 20 s: longer than a reference video may be. */
  mp4_20s: Uint8Array;
  /** MP4 with an audio stream only. */
  mp4_audio_only: Uint8Array;
  /** WAV, exactly 2.5 s. */
  wav_2500ms: Uint8Array;
  /** MP3 of about 2 s (the encoder pads it; ffprobe reads the exact length). */
  mp3_2s: Uint8Array;
  /** Starts like an MP4 (so its format is recognised) but the rest is garbage. */
  corrupt_mp4: Uint8Array;
}

let made: Promise<MediaFixtures> | undefined;

/** Makes the media fixtures with ffmpeg (once per process). */
export function mediaFixtures(): Promise<MediaFixtures> {
  return made ??= (async () => {
    const dir = await Deno.makeTempDir({ prefix: "gateway-media-" });
    const video = (seconds: number, file: string) =>
      ffmpeg([
        "-f",
        "lavfi",
        "-i",
        `testsrc=size=160x120:rate=10`,
        "-t",
        String(seconds),
        "-pix_fmt",
        "yuv420p",
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        `${dir}/${file}`,
      ]);
    const tone = (seconds: number, file: string, extra: string[] = []) =>
      ffmpeg([
        "-f",
        "lavfi",
        "-i",
        `sine=frequency=440:sample_rate=16000`,
        "-t",
        String(seconds),
        ...extra,
        `${dir}/${file}`,
      ]);
    await Promise.all([
      video(3, "3s.mp4"),
      video(20, "20s.mp4"),
      tone(2.5, "2500ms.wav"),
      tone(2, "2s.mp3", ["-c:a", "libmp3lame"]),
      tone(3, "audio_only.mp4", ["-c:a", "aac"]),
    ]);
    const read = (file: string) => Deno.readFile(`${dir}/${file}`);
    const mp4 = await read("3s.mp4");
    const corrupt = new Uint8Array(mp4.length);
    crypto.getRandomValues(corrupt.subarray(0, 65536));
    corrupt.set(mp4.subarray(0, 32));
    const fixtures: MediaFixtures = {
      mp4_3s: mp4,
      mp4_20s: await read("20s.mp4"),
      mp4_audio_only: await read("audio_only.mp4"),
      wav_2500ms: await read("2500ms.wav"),
      mp3_2s: await read("2s.mp3"),
      corrupt_mp4: corrupt,
    };
    await Deno.remove(dir, { recursive: true });
    return fixtures;
  })();
}

/** The duration ffprobe reads for `bytes`, in seconds. */
export async function probeSeconds(bytes: Uint8Array): Promise<number> {
  const path = await Deno.makeTempFile();
  try {
    await Deno.writeFile(path, bytes);
    const output = await new Deno.Command(FFPROBE, {
      args: ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path],
      stdout: "piped",
    }).output();
    return Number(new TextDecoder().decode(output.stdout).trim());
  } finally {
    await Deno.remove(path);
  }
}
