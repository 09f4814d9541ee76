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

export const PROBE_TIMEOUT_MS = 15_000;

const PROBE_ARGS = [
  "-v",
  "error",
  "-show_entries",
  "format=duration,format_name:stream=codec_type",
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
  return runProbe(ffprobePath, { path }, options.timeoutMs ?? PROBE_TIMEOUT_MS);
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
  if (!(await needsSeeking(bytes, options.contentType))) {
    return await runProbe(ffprobePath, { stdin: bytes }, timeoutMs);
  }
  if (options.path) return await runProbe(ffprobePath, { path: options.path }, timeoutMs);
  const path = await Deno.makeTempFile({ dir: options.tempDir, prefix: "gateway-probe-" });
  try {
    await Deno.writeFile(path, bytes);
    return await runProbe(ffprobePath, { path }, timeoutMs);
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
  if (await needsSeeking(path, options.contentType)) {
    return await runProbe(ffprobePath, { path }, timeoutMs);
  }
  return await runProbe(ffprobePath, { stdinFile: path }, timeoutMs);
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
  if (typeof media !== "string") {
    return await fragmentedOrOdd(
      media.length,
      (at, length) => Promise.resolve(media.subarray(at, at + length)),
    );
  }
  using file = await Deno.open(media);
  const size = (await file.stat()).size;
  return await fragmentedOrOdd(size, async (at, length) => {
    await file.seek(at, Deno.SeekMode.Start);
    const buffer = new Uint8Array(length);
    let filled = 0;
    while (filled < length) {
      const read = await file.read(buffer.subarray(filled));
      if (read === null) break;
      filled += read;
    }
    return buffer.subarray(0, filled);
  });
}

type ReadAt = (at: number, length: number) => Promise<Uint8Array>;

/** True for a fragmented MP4 (a moof, or an mvex in the moov), no moov, or a broken structure. */
async function fragmentedOrOdd(size: number, readAt: ReadAt): Promise<boolean> {
  const top = await boxesIn(readAt, 0, size);
  if (!top) return true;
  const moov = top.find((box) => box.type === "moov");
  if (!moov || top.some((box) => box.type === "moof")) return true;
  const body = await readAt(moov.start + moov.header, moov.size - moov.header);
  const inMoov = await boxesIn(
    (at, length) => Promise.resolve(body.subarray(at, at + length)),
    0,
    body.length,
  );
  return !inMoov || inMoov.some((box) => box.type === "mvex");
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

async function runProbe(
  ffprobePath: string,
  input: ProbeInput,
  timeoutMs: number,
): Promise<ProbedMedia> {
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
    if (error instanceof Deno.errors.NotFound) {
      throw new ProbeError(`ffprobe was not found at '${ffprobePath}'`, true);
    }
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
      throw new ProbeError(`ffprobe may not be run here: ${(error as Error).message}`, true);
    }
    throw new ProbeError(`ffprobe did not finish: ${(error as Error).message}`);
  }
  if (signal.aborted) {
    throw new ProbeError(`ffprobe did not finish within ${timeoutMs} ms`);
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
