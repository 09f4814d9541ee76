/**
 * Why a duration could not be read; the request is refused and nothing is charged. The message
 * is the client's: the gateway's own words, never a path or a tool's output. What a tool said
 * (ffprobe's stderr, which names the file it read; mp4box's complaints) is `detail`, for the
 * server log only.
 */

/** What kind of problem a file has, for the client's message. */
export type ProbeProblem = "not_media" | "unsupported" | "no_duration";

export interface ProbeErrorOptions {
  /** The reader cannot run here (ffprobe missing or not allowed): another reader is tried. */
  unavailable?: boolean;
  /** Default `not_media`: the bytes are not a readable file of their format. */
  problem?: ProbeProblem;
  /** A tool's own words (may name server paths): logged, never answered. */
  detail?: string;
}

export class ProbeError extends Error {
  readonly unavailable: boolean;
  readonly problem: ProbeProblem;
  readonly detail?: string;

  constructor(message: string, options: ProbeErrorOptions = {}) {
    super(message);
    this.name = "ProbeError";
    this.unavailable = options.unavailable ?? false;
    this.problem = options.problem ?? "not_media";
    this.detail = options.detail;
  }
}
