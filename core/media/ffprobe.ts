/**
 * Reads media durations with ffprobe (FFPROBE_PATH, else `ffprobe` on PATH) through Deno.Command.
 * From bytes, ffprobe reads a pipe (`-i pipe:0`) where that gives the same answer as the file,
 * and a temp file elsewhere, removed on every path (answer, error, the child killed):
 *
 *   - MP4/MOV with a moov and no fragments, moov at the start or at the end: a pipe. ffprobe
 *     reads through the mdat to a trailing moov without seeking (checked on every fixture).
 *   - Fragmented MP4 (a moof box, or an mvex in the moov): a file. On a pipe ffprobe 5.1 takes
 *     the duration from the first fragments only (1.08 s for a 2.4 s file).
 *   - WAV and MP3: a file. Their duration comes from the file's size (data bytes over the byte
 *     rate; an MP3 without a frame count by its bit rate), which a pipe does not have: ffprobe
 *     answers N/A.
 *
 * The seconds are the longest of ffprobe's format duration and what its streams say (each
 * video/audio stream's end, and a video's frame count over its average frame rate, which comes
 * from its sample table), counted as mp4_sample_lengths.ts says: ffprobe 5.1 takes an MP4's format
 * duration from the movie header alone, a field the client writes. probeMediaBytes and
 * probeMediaFile, the gateway's ways in, also read in process what ffprobe does not show: the
 * sample tables of every MP4 track (an audio track's forged headers hide its samples from
 * ffprobe), an MP3's frames (ffprobe believes its Xing/VBRI frame count), and a WAV's chunks
 * (wav_layout.ts refuses the WAVs ffprobe would measure by their byte rate field), so they give
 * what the in-process reader gives.
 */

import { MP3_TYPES, readDurationFromBytes } from "./duration_reader.ts";
import { ProbeError } from "./probe_error.ts";
import { longestPlausible, moovSampleSeconds } from "./mp4_sample_lengths.ts";
import { isWav, readWavLayout, WAV_HEADER_BYTES } from "./wav_layout.ts";
import type { ProbedMedia } from "./probed_media.ts";

export type { ProbedMedia };
export { ProbeError };

export const PROBE_TIMEOUT_MS = 15_000;

const PROBE_ARGS = [
  "-v",
  "error",
  "-show_entries",
  "format=duration,format_name:stream=codec_type,start_time,duration,nb_frames,avg_frame_rate",
  "-of",
  "json",
];

export interface ProbeOptions {
  /** Kills ffprobe after this long (default 15 s); the probe then fails. */
  timeoutMs?: number;
}

/** Runs ffprobe on the file at `path`; throws ProbeError when it has no readable duration. */
export function probeMedia(
  ffprobePath: string,
  path: string,
  options: ProbeOptions = {},
): Promise<ProbedMedia> {
  return runProbe(ffprobePath, { path }, options.timeoutMs ?? PROBE_TIMEOUT_MS)
    .then((answer) => settle(answer, []));
}

export interface ProbeBytesOptions extends ProbeOptions {
  /** The content type sniffed from the bytes: video/mp4, video/quicktime, audio/wav … */
  contentType: string;
  /** The same bytes already in a file (an upload on disk): read there instead of a temp file. */
  path?: string;
  /** Where a temp file goes when one is needed (default: the system's temp dir). */
  tempDir?: string;
}

/**
 * Runs ffprobe on `bytes`: through a pipe where that gives the file's answer, else from
 * `options.path` or a temp file that is removed whatever happens.
 */
export async function probeMediaBytes(
  ffprobePath: string,
  bytes: Uint8Array,
  options: ProbeBytesOptions,
): Promise<ProbedMedia> {
  const timeoutMs = options.timeoutMs ?? PROBE_TIMEOUT_MS;
  const { seek, samples } = await inspect(bytesReader(bytes), bytes.length, options.contentType);
  if (!seek) return settle(await runProbe(ffprobePath, { stdin: bytes }, timeoutMs), samples);
  if (options.path) {
    return settle(await runProbe(ffprobePath, { path: options.path }, timeoutMs), samples);
  }
  const path = await Deno.makeTempFile({ dir: options.tempDir, prefix: "gateway-probe-" });
  try {
    await Deno.writeFile(path, bytes);
    return settle(await runProbe(ffprobePath, { path }, timeoutMs), samples);
  } finally {
    await Deno.remove(path).catch(() => {});
  }
}

/**
 * Runs ffprobe on a file already on disk (an upload): streamed through a pipe where that gives
 * the file's answer (never loaded whole), else by its path.
 */
export async function probeMediaFile(
  ffprobePath: string,
  path: string,
  options: ProbeOptions & { contentType: string },
): Promise<ProbedMedia> {
  const timeoutMs = options.timeoutMs ?? PROBE_TIMEOUT_MS;
  const { seek, samples } = await withFile(
    path,
    (readAt, size) => inspect(readAt, size, options.contentType),
  );
  const input = seek ? { path } : { stdinFile: path };
  return settle(await runProbe(ffprobePath, input, timeoutMs), samples);
}

const MP4_TYPES = new Set(["video/mp4", "video/quicktime", "video/x-m4v", "audio/mp4"]);

/** Whether files of `contentType` may go through a pipe at all (MP4/MOV, unless fragmented). */
export function mayPipe(contentType: string): boolean {
  return MP4_TYPES.has(contentType.split(";")[0].trim().toLowerCase());
}

/**
 * Whether ffprobe needs the media (bytes, or a file at a path) as a file (it seeks, or takes the
 * duration from the size) to answer what it answers for the file: everything but MP4/MOV
 * without fragments. Only box headers and the moov are read.
 */
export async function needsSeeking(
  media: Uint8Array | string,
  contentType: string,
): Promise<boolean> {
  if (!mayPipe(contentType)) return true;
  const { pipe } = typeof media === "string"
    ? await withFile(media, mp4Layout)
    : await mp4Layout(bytesReader(media), media.length);
  return !pipe;
}

type ReadAt = (at: number, length: number) => Promise<Uint8Array>;

function bytesReader(bytes: Uint8Array): ReadAt {
  return (at, length) => Promise.resolve(bytes.subarray(at, at + length));
}

/** Runs `use` with a reader of the file at `path`, closed afterwards. */
async function withFile<T>(path: string, use: (readAt: ReadAt, size: number) => Promise<T>) {
  using file = await Deno.open(path);
  const size = (await file.stat()).size;
  return await use(async (at, length) => {
    await file.seek(at, Deno.SeekMode.Start);
    const buffer = new Uint8Array(length);
    let filled = 0;
    while (filled < length) {
      const read = await file.read(buffer.subarray(filled));
      if (read === null) break;
      filled += read;
    }
    return buffer.subarray(0, filled);
  }, size);
}

/**
 * What is read in process before ffprobe runs: whether ffprobe needs a file rather than a pipe,
 * and the seconds an MP4's tracks' samples last. A WAV ffprobe would measure by a header field
 * is refused here (ProbeError).
 */
async function inspect(
  readAt: ReadAt,
  size: number,
  contentType: string,
): Promise<{ seek: boolean; samples: number[] }> {
  if (isWav(contentType)) {
    readWavLayout(await readAt(0, Math.min(size, WAV_HEADER_BYTES)), size);
    return { seek: true, samples: [] };
  }
  if (isMp3(contentType)) return { seek: true, samples: await mp3Frames(readAt, size) };
  if (!mayPipe(contentType)) return { seek: true, samples: [] };
  const { pipe, moov } = await mp4Layout(readAt, size);
  return { seek: !pipe, samples: moov ? moovSampleSeconds(moov) : [] };
}

function isMp3(contentType: string): boolean {
  return MP3_TYPES.has(contentType.split(";")[0].trim().toLowerCase());
}

/**
 * The seconds an MP3's frames last, as the in-process reader counts them (its Xing/VBRI frame
 * count is a field the client writes); none where that reader refuses the file.
 */
async function mp3Frames(readAt: ReadAt, size: number): Promise<number[]> {
  try {
    const read = await readDurationFromBytes(await readAt(0, size), { contentType: "audio/mpeg" });
    return [read.seconds];
  } catch (error) {
    if (error instanceof ProbeError) return [];
    throw error;
  }
}

/**
 * An MP4's moov box (when it has one and no fragments) and whether ffprobe may read it from a
 * pipe: not when it is fragmented (a moof, or an mvex in the moov), has no moov, or a broken
 * structure.
 */
async function mp4Layout(
  readAt: ReadAt,
  size: number,
): Promise<{ pipe: boolean; moov?: Uint8Array }> {
  const top = await boxesIn(readAt, 0, size);
  const moov = top?.find((box) => box.type === "moov");
  if (!top || !moov || top.some((box) => box.type === "moof")) return { pipe: false };
  const box = await readAt(moov.start, moov.size);
  const inMoov = await boxesIn(bytesReader(box), moov.header, box.length);
  if (!inMoov || inMoov.some((child) => child.type === "mvex")) return { pipe: false };
  return { pipe: true, moov: box };
}

interface Box {
  type: string;
  start: number;
  size: number;
  header: number;
}

/** The boxes between `from` and `to`; null when they are not a well-formed run of boxes. */
async function boxesIn(readAt: ReadAt, from: number, to: number): Promise<Box[] | null> {
  const boxes: Box[] = [];
  let offset = from;
  while (offset + 8 <= to) {
    const head = await readAt(offset, Math.min(16, to - offset));
    if (head.length < 8) return null;
    const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
    let size = view.getUint32(0);
    let header = 8;
    if (size === 1) {
      if (head.length < 16) return null;
      size = Number(view.getBigUint64(8));
      header = 16;
    } else if (size === 0) {
      size = to - offset;
    }
    if (size < header || offset + size > to) return null;
    boxes.push({ type: String.fromCharCode(...head.subarray(4, 8)), start: offset, size, header });
    offset += size;
  }
  return boxes;
}

type ProbeInput = { path: string } | { stdin: Uint8Array } | { stdinFile: string };

/** What ffprobe answered: its format duration, and the seconds its video/audio streams say. */
interface FfprobeAnswer {
  formatSeconds: number;
  streamSeconds: number[];
  streams: string[];
  formatName: string;
}

async function runProbe(
  ffprobePath: string,
  input: ProbeInput,
  timeoutMs: number,
): Promise<FfprobeAnswer> {
  const signal = AbortSignal.timeout(timeoutMs);
  let output: Deno.CommandOutput;
  try {
    const child = new Deno.Command(ffprobePath, {
      args: [...PROBE_ARGS, "-i", "path" in input ? input.path : "pipe:0"],
      stdin: "path" in input ? "null" : "piped",
      stdout: "piped",
      stderr: "piped",
      signal,
    }).spawn();
    // ffprobe stops reading once it has its answer (a moov at the start): a broken pipe then
    // ends the writing, which is not an error.
    let writing: Promise<void> = Promise.resolve();
    if ("stdin" in input) {
      writing = (async () => {
        const writer = child.stdin.getWriter();
        try {
          await writer.write(input.stdin);
          await writer.close();
        } catch {
          // see above
        }
      })();
    } else if ("stdinFile" in input) {
      const file = await Deno.open(input.stdinFile);
      writing = file.readable.pipeTo(child.stdin).catch(() => {
        try {
          file.close();
        } catch {
          // already closed by the stream
        }
      });
    }
    output = await child.output();
    await writing;
  } catch (error) {
    const detail = String((error as Error).message ?? error);
    if (error instanceof Deno.errors.NotFound) {
      throw new ProbeError(`ffprobe was not found at '${ffprobePath}'`, {
        unavailable: true,
        detail,
      });
    }
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
      throw new ProbeError("ffprobe may not be run here", { unavailable: true, detail });
    }
    throw new ProbeError("reading the file failed", {
      detail: `ffprobe did not finish: ${detail}`,
    });
  }
  if (signal.aborted) {
    throw new ProbeError(`reading the file took longer than ${timeoutMs / 1000} s`, {
      detail: `ffprobe killed after ${timeoutMs} ms`,
    });
  }
  if (!output.success) {
    // ffprobe's words (they name the file it read, a temp path) go to the log only.
    throw new ProbeError("damaged, incomplete, or not the format its first bytes say", {
      detail: `ffprobe exited with ${output.code}: ${
        new TextDecoder().decode(output.stderr).trim().slice(-500)
      }`,
    });
  }
  let parsed: {
    format?: { duration?: string; format_name?: string };
    streams?: FfprobeStream[];
  };
  try {
    parsed = JSON.parse(new TextDecoder().decode(output.stdout));
  } catch {
    throw new ProbeError("reading the file failed", {
      detail: `ffprobe's answer is not JSON: ${
        new TextDecoder().decode(output.stdout).slice(0, 200)
      }`,
    });
  }
  const streams = parsed.streams ?? [];
  return {
    formatSeconds: Number(parsed.format?.duration),
    streamSeconds: streams.flatMap(streamSeconds),
    streams: streams.map((stream) => stream.codec_type ?? "unknown"),
    formatName: parsed.format?.format_name ?? "",
  };
}

interface FfprobeStream {
  codec_type?: string;
  start_time?: string;
  duration?: string;
  nb_frames?: string;
  avg_frame_rate?: string;
}

/**
 * What one stream says it lasts: where it ends (start + duration, both after the edit list), and
 * for a video its frame count over its average frame rate (ffmpeg takes both from the sample
 * table, before the edit list).
 */
function streamSeconds(stream: FfprobeStream): number[] {
  if (stream.codec_type !== "video" && stream.codec_type !== "audio") return [];
  const seconds: number[] = [];
  const start = Number(stream.start_time);
  const duration = Number(stream.duration);
  if (Number.isFinite(duration)) seconds.push((Number.isFinite(start) ? start : 0) + duration);
  const [num, den] = (stream.avg_frame_rate ?? "").split("/").map(Number);
  const frames = Number(stream.nb_frames);
  if (stream.codec_type === "video" && frames > 0 && num > 0 && den > 0) {
    seconds.push(Math.round(frames * den / num * 1e6) / 1e6);
  }
  return seconds;
}

/** The seconds to bill: the longest plausible of ffprobe's answer and the samples read here. */
function settle(answer: FfprobeAnswer, samples: readonly number[]): ProbedMedia {
  const header = Number.isFinite(answer.formatSeconds) ? answer.formatSeconds : 0;
  const seconds = longestPlausible(header, [...answer.streamSeconds, ...samples]);
  if (!(seconds > 0)) {
    throw new ProbeError("the file has no readable duration", { problem: "no_duration" });
  }
  return { seconds, streams: answer.streams, formatName: answer.formatName };
}
