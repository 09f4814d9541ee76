/**
 * The committed media corpus (tests/fixtures/media/, made once by make_fixtures.sh) and the
 * durations ffprobe reads for it (durations.json). No test makes media at run time, so none
 * needs ffmpeg; tests that run ffprobe itself go through external_tools.ts.
 */

export const MEDIA_DIR = new URL("../fixtures/media/", import.meta.url);

export interface DurationRow {
  /** ffprobe 5.1's format=duration; null where ffprobe refuses the file. */
  ffprobeSeconds: number | null;
  formatName: string | null;
  streams: string[];
  /**
   * duration: the in-process reader gives ffprobe's seconds; refuse: it throws; frames:
   * readerSeconds (the frame count); samples: a forged file, both readers give readerSeconds.
   */
  reader: "duration" | "refuse" | "frames" | "samples";
  readerSeconds?: number;
  /** The gateway refuses the file with ffprobe as well (ffprobe would believe a forged field). */
  bothRefuse?: boolean;
  bytes: number;
  description: string;
}

export const DURATIONS: { ffprobe: string; files: Record<string, DurationRow> } = JSON.parse(
  Deno.readTextFileSync(new URL("durations.json", MEDIA_DIR)),
);

/** The bytes of a committed fixture. */
export function mediaFixture(file: string): Uint8Array {
  return Deno.readFileSync(new URL(file, MEDIA_DIR));
}

/** The seconds a reference file is billed for: ffprobe's duration, rounded to the millisecond. */
export function billedSecondsOf(file: string): number {
  const seconds = DURATIONS.files[file]?.ffprobeSeconds;
  if (seconds === null || seconds === undefined) throw new Error(`${file}: no ffprobe duration`);
  return Math.round(seconds * 1000) / 1000;
}

const CONTENT_TYPES: Record<string, string> = {
  mp4: "video/mp4",
  mov: "video/quicktime",
  wav: "audio/wav",
  mp3: "audio/mpeg",
};

/** The content type a fixture is sniffed as, from its extension. */
export function contentTypeOf(file: string): string {
  return CONTENT_TYPES[file.split(".").pop()!] ?? "application/octet-stream";
}

export interface MediaFixtures {
  /** MP4 (H.264), exactly 3 s, moov at the end. */
  mp4_3s: Uint8Array;
  /** MP4 of 20 s: longer than a reference video may be. */
  mp4_20s: Uint8Array;
  /** MP4 with an audio stream only. */
  mp4_audio_only: Uint8Array;
  /** WAV, exactly 2.5 s. */
  wav_2500ms: Uint8Array;
  /** MP3 of 2 s with its encoder's padding: ffprobe reads 2.088 s. */
  mp3_2s: Uint8Array;
  /** Starts like an MP4 (so its format is recognised) but the rest is garbage. */
  corrupt_mp4: Uint8Array;
}

/** The fixtures the video tests use most, read from the corpus. */
export function mediaFixtures(): MediaFixtures {
  return {
    mp4_3s: mediaFixture("mp4_3s.mp4"),
    mp4_20s: mediaFixture("mp4_20s.mp4"),
    mp4_audio_only: mediaFixture("mp4_audio_only.mp4"),
    wav_2500ms: mediaFixture("wav_2500ms.wav"),
    mp3_2s: mediaFixture("mp3_2s.mp3"),
    corrupt_mp4: mediaFixture("corrupt_mp4.mp4"),
  };
}
