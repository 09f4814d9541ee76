/**
 * The 400 for a reference whose duration cannot be read: which field, what kind of problem (not
 * a readable file of its kind, a format whose duration cannot be read, no duration) and what to
 * send instead, in the gateway's own words. A tool's output (ffprobe's stderr names the upload's
 * temp file) is never in it: see ProbeError.detail. Pure.
 */

import { GatewayError } from "../errors.ts";
import type { ProbeError } from "../media/probe_error.ts";
import { REFERENCE_LIMITS, type ReferenceKind } from "./reference_media.ts";

/** "MP4 or MOV", "WAV or MP3". */
function formatsOf(kind: ReferenceKind): string {
  const names = Object.values(REFERENCE_LIMITS[kind].formats);
  return names.length > 1 ? `${names.slice(0, -1).join(", ")} or ${names.at(-1)}` : names[0];
}

export function unreadableReference(
  field: string,
  { kind, error, seconds }: {
    kind: ReferenceKind;
    error: ProbeError;
    /** The model's limits for the kind, for the advice on a file without a duration. */
    seconds: { min?: number; max?: number };
  },
): GatewayError {
  const formats = formatsOf(kind);
  const [what, advice] = error.problem === "unsupported"
    ? ["its format is not supported", `Send it as ${formats} in a common encoding.`]
    : error.problem === "no_duration"
    ? [
      "it has no duration",
      `Send ${kind === "audio" ? "an" : "a"} ${kind} that plays for ${
        seconds.min ? `${seconds.min} to ${seconds.max}` : `up to ${seconds.max}`
      } seconds.`,
    ]
    : [`it is not a readable ${kind} file`, `Send a complete, undamaged ${formats} file.`];
  return new GatewayError(
    "media_duration_unreadable",
    400,
    `The duration of ${field} could not be read: ${what} (${error.message}). ${advice}`,
    { param: field },
  );
}
