/**
 * Reads media durations with ffprobe (FFPROBE_PATH, else `ffprobe` on PATH) through Deno.Command.
 * The file is given by path so ffprobe can seek (an MP4's index may sit at its end).
 */

export interface ProbedMedia {
  /** Seconds, as the container reports it. */
  seconds: number;
  /** The kinds of stream present: `video`, `audio`, … */
  streams: string[];
  formatName: string;
}

/** Why a duration could not be read; the request is refused and nothing is charged. */
export class ProbeError extends Error {
  constructor(message: string, readonly unavailable = false) {
    super(message);
    this.name = "ProbeError";
  }
}

const PROBE_TIMEOUT_MS = 15_000;

/** Runs ffprobe on `path`; throws ProbeError when the file has no readable duration. */
export async function probeMedia(ffprobePath: string, path: string): Promise<ProbedMedia> {
  let output: Deno.CommandOutput;
  try {
    output = await new Deno.Command(ffprobePath, {
      args: [
        "-v",
        "error",
        "-show_entries",
        "format=duration,format_name:stream=codec_type",
        "-of",
        "json",
        path,
      ],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    }).output();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new ProbeError(`ffprobe was not found at '${ffprobePath}'`, true);
    }
    throw new ProbeError(`ffprobe did not finish: ${(error as Error).message}`);
  }
  if (!output.success) {
    const detail = new TextDecoder().decode(output.stderr).trim().split("\n").pop() ?? "";
    throw new ProbeError(`the file could not be read as media${detail ? ` (${detail})` : ""}`);
  }
  let parsed: {
    format?: { duration?: string; format_name?: string };
    streams?: Array<{ codec_type?: string }>;
  };
  try {
    parsed = JSON.parse(new TextDecoder().decode(output.stdout));
  } catch {
    throw new ProbeError("ffprobe gave an answer that is not JSON");
  }
  const seconds = Number(parsed.format?.duration);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new ProbeError("the file has no readable duration");
  }
  return {
    seconds,
    streams: (parsed.streams ?? []).map((stream) => stream.codec_type ?? "unknown"),
    formatName: parsed.format?.format_name ?? "",
  };
}
