/**
 * The seconds of an uploaded audio, read by the gateway's own duration reader (ffprobe where it
 * runs, else in process; core/media/media_duration.ts). A per-second model bills them, so a file
 * whose duration cannot be read is refused with nothing charged, as video references are; a
 * per-token model only bounds its hold with them.
 */

import { GatewayError } from "../errors.ts";
import type { Gateway } from "../gateway.ts";
import { type DurationReaderName, SourceError } from "../media/media_duration.ts";
import type { ProbeError } from "../media/probe_error.ts";
import type { AudioFile } from "../jobs/transcription_job.ts";
import { AUDIO_FORMAT_NAMES } from "./audio_file.ts";

export interface AudioSeconds {
  seconds: number;
  reader: DurationReaderName;
}

/** The 400 for an audio whose duration cannot be read, in the gateway's own words. */
export function unreadableAudio(error: ProbeError | { problem: "no_audio"; message: string }) {
  const what = error.problem === "unsupported"
    ? "its format's duration cannot be read here"
    : error.problem === "no_duration"
    ? "it has no duration"
    : error.problem === "no_audio"
    ? "it has no audio stream"
    : "it is not a readable audio file";
  return new GatewayError(
    "media_duration_unreadable",
    400,
    `The duration of file could not be read: ${what} (${error.message}). This model is billed ` +
      `per second of audio; send a complete, undamaged audio file (${AUDIO_FORMAT_NAMES}).`,
    { param: "file" },
  );
}

/**
 * The audio's seconds, or the 400 that refuses it when `required` (a per-second model); when not
 * required, undefined for an unreadable file.
 */
export async function readAudioSeconds(
  gateway: Gateway,
  file: AudioFile,
  { required }: { required: boolean },
): Promise<AudioSeconds | undefined> {
  try {
    const { reader, media } = await gateway.durations.readAll([
      { contentType: file.contentType, bytes: file.bytes },
    ]);
    const [probed] = media;
    if (!probed.streams.includes("audio")) {
      if (!required) return undefined;
      throw unreadableAudio({ problem: "no_audio", message: "no audio stream was found" });
    }
    if (!(probed.seconds > 0)) {
      if (!required) return undefined;
      throw unreadableAudio({ problem: "no_audio", message: "the audio lasts 0 seconds" });
    }
    return { seconds: probed.seconds, reader };
  } catch (error) {
    if (!(error instanceof SourceError)) throw error;
    if (error.cause.detail) {
      gateway.options.log?.({ msg: "audio duration unreadable", detail: error.cause.detail });
    }
    if (!required) return undefined;
    throw unreadableAudio(error.cause);
  }
}
