/** Refusals several video upstreams share (pure). */

import type { VideoAsk, VideoRefusal } from "../jobs/video_job.ts";

/** Refuses any reference but a single image, naming the first field `who` cannot take. */
export function onlyOneImage(ask: VideoAsk, who: string): VideoRefusal | undefined {
  const other = ask.references.find((reference) => reference.kind !== "image");
  if (other) {
    return {
      param: other.field,
      message: `${other.field}: this model's upstream (${who}) takes no reference ${other.kind}; ` +
        `send at most one reference image`,
    };
  }
  const second = ask.references.filter((reference) => reference.kind === "image")[1];
  if (second) {
    return {
      param: second.field,
      message: `${second.field}: this model's upstream (${who}) takes one reference image; ` +
        `send only image_1`,
    };
  }
  return undefined;
}
