/**
 * Which reader gives reference media durations, and reading them. ffprobe (the spec's reader)
 * where this process may run it and write temp files and the binary is there; otherwise the
 * in-process reader (duration_reader.ts), which gives ffprobe 5.1's seconds to the millisecond
 * for the formats references come in, so the bill is the same. A task records which one read
 * its references.
 */

import { readDurationFromBytes } from "./duration_reader.ts";
import { type ProbedMedia, ProbeError, probeMediaBytes, probeMediaFile } from "./ffprobe.ts";

export type DurationReaderName = "ffprobe" | "in-process";

/** One reference file: its bytes in memory, or on disk at `path` (or both). */
export interface MediaSource {
  contentType: string;
  bytes?: Uint8Array;
  path?: string;
}

export interface DurationReadersOptions {
  ffprobePath: string;
  /** This process may start ffprobe (run permission; not on Deno Deploy). */
  runFfprobe: boolean;
  /** This process may write temp files (ffprobe reads WAV, MP3 and fragmented MP4 from one). */
  tempFiles: boolean;
  /** Where a line saying which reader is used goes (once, and again if ffprobe goes away). */
  log?: (line: Record<string, unknown>) => void;
}

export class DurationReaders {
  readonly #options: DurationReadersOptions;
  #chosen?: Promise<DurationReaderName>;

  constructor(options: DurationReadersOptions) {
    this.#options = options;
  }

  /** The reader this process uses now: ffprobe once `ffprobe -version` answered, else in process. */
  reader(): Promise<DurationReaderName> {
    return this.#chosen ??= this.#choose();
  }

  async #choose(): Promise<DurationReaderName> {
    const { ffprobePath, runFfprobe, tempFiles } = this.#options;
    let why: string;
    if (!runFfprobe) why = "this process may not run subprocesses";
    else if (!tempFiles) why = "this process may not write temp files";
    else {
      const version = await ffprobeVersion(ffprobePath);
      if (version) {
        this.#options.log?.({ msg: "duration reader", reader: "ffprobe", ffprobe: version });
        return "ffprobe";
      }
      why = `ffprobe was not found at '${ffprobePath}'`;
    }
    this.#options.log?.({ msg: "duration reader", reader: "in-process", why });
    return "in-process";
  }

  /**
   * Reads every source's duration with one reader, so a task is read by one. If ffprobe turns
   * out to be gone, all are read again in process. Throws ProbeError (with the index of the
   * source) when a file has no readable duration.
   */
  async readAll(
    sources: MediaSource[],
  ): Promise<{ reader: DurationReaderName; media: ProbedMedia[] }> {
    const reader = await this.reader();
    if (reader === "ffprobe") {
      try {
        return { reader, media: await this.#each(sources, (source) => this.#ffprobe(source)) };
      } catch (error) {
        if (!(error instanceof SourceError && error.cause.unavailable)) throw error;
        this.#options.log?.({
          msg: "duration reader",
          reader: "in-process",
          why: error.cause.message,
          detail: error.cause.detail,
        });
        this.#chosen = Promise.resolve("in-process");
      }
    }
    return { reader: "in-process", media: await this.#each(sources, inProcess) };
  }

  async #each(
    sources: MediaSource[],
    read: (source: MediaSource) => Promise<ProbedMedia>,
  ): Promise<ProbedMedia[]> {
    const media: ProbedMedia[] = [];
    for (const [index, source] of sources.entries()) {
      try {
        media.push(await read(source));
      } catch (error) {
        if (error instanceof ProbeError) throw new SourceError(index, error);
        throw error;
      }
    }
    return media;
  }

  async #ffprobe(source: MediaSource): Promise<ProbedMedia> {
    const { ffprobePath } = this.#options;
    // An upload on disk: piped from there or read by its path, never loaded whole.
    if (source.path && !source.bytes) {
      return await probeMediaFile(ffprobePath, source.path, { contentType: source.contentType });
    }
    return await probeMediaBytes(ffprobePath, await bytesOf(source), {
      contentType: source.contentType,
      path: source.path,
    });
  }
}

/** A ProbeError of the source at `index`. */
export class SourceError extends Error {
  constructor(readonly index: number, override readonly cause: ProbeError) {
    super(cause.message);
    this.name = "SourceError";
  }
}

async function bytesOf(source: MediaSource): Promise<Uint8Array> {
  if (source.bytes) return source.bytes;
  if (source.path) return await Deno.readFile(source.path);
  throw new Error("a media source has neither bytes nor a path");
}

async function inProcess(source: MediaSource): Promise<ProbedMedia> {
  return await readDurationFromBytes(await bytesOf(source), { contentType: source.contentType });
}

/** The first line of `ffprobe -version`, or undefined when it cannot be run. */
export async function ffprobeVersion(ffprobePath: string): Promise<string | undefined> {
  try {
    const output = await new Deno.Command(ffprobePath, {
      args: ["-version"],
      stdin: "null",
      stdout: "piped",
      stderr: "null",
      signal: AbortSignal.timeout(10_000),
    }).output();
    return output.success ? new TextDecoder().decode(output.stdout).split("\n")[0] : undefined;
  } catch {
    return undefined;
  }
}
