/** Image sizes: the spec's listed values and the constraints an unlisted size must meet. */

import { parseSize } from "../jobs/image_job.ts";

export const LISTED_SIZES = [
  "auto",
  "1024x1024",
  "1536x1024",
  "1024x1536",
  "2048x2048",
  "2048x1152",
  "3840x2160",
  "2160x3840",
] as const;

const MAX_EDGE = 3840;
const EDGE_MULTIPLE = 16;
const MAX_ASPECT = 3;
const MIN_PIXELS = 655_360;
const MAX_PIXELS = 8_294_400;

/**
 * Why `size` is not acceptable, naming the rule it breaks; null when it is. A listed size is
 * always accepted; another `WxH` only when it meets every constraint of the spec.
 */
export function sizeProblem(size: string): string | null {
  if ((LISTED_SIZES as readonly string[]).includes(size)) return null;
  const dimensions = parseSize(size);
  if (!dimensions) {
    return `size must be 'auto' or WIDTHxHEIGHT in pixels (e.g. 1024x1024), got '${size}'`;
  }
  const { width, height } = dimensions;
  if (width === 0 || height === 0) return `size '${size}': both edges must be positive`;
  if (Math.max(width, height) > MAX_EDGE) {
    return `size '${size}': the longest edge must be at most ${MAX_EDGE} pixels`;
  }
  if (width % EDGE_MULTIPLE !== 0 || height % EDGE_MULTIPLE !== 0) {
    return `size '${size}': each edge must be a multiple of ${EDGE_MULTIPLE} pixels`;
  }
  if (Math.max(width, height) / Math.min(width, height) > MAX_ASPECT) {
    return `size '${size}': the aspect ratio must be at most ${MAX_ASPECT}:1`;
  }
  const pixels = width * height;
  if (pixels < MIN_PIXELS || pixels > MAX_PIXELS) {
    return `size '${size}': the total pixel count must be from ${
      MIN_PIXELS.toLocaleString("en")
    } to ${MAX_PIXELS.toLocaleString("en")} (this size has ${pixels.toLocaleString("en")})`;
  }
  return null;
}
