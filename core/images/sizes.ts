/** Image sizes: the spec's listed values and the constraints an unlisted size must meet. */

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

export interface Dimensions {
  width: number;
  height: number;
}

/** Parses `WIDTHxHEIGHT`; null for anything else (including `auto`). */
export function parseSize(size: string): Dimensions | null {
  const match = /^(\d{1,5})x(\d{1,5})$/.exec(size);
  if (!match) return null;
  return { width: Number(match[1]), height: Number(match[2]) };
}

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

/** Aspect ratios a Gemini image model accepts, as width / height. */
const GEMINI_RATIOS: Array<[string, number]> = [
  ["1:1", 1],
  ["2:3", 2 / 3],
  ["3:2", 3 / 2],
  ["3:4", 3 / 4],
  ["4:3", 4 / 3],
  ["4:5", 4 / 5],
  ["5:4", 5 / 4],
  ["9:16", 9 / 16],
  ["16:9", 16 / 9],
  ["21:9", 21 / 9],
];

/**
 * Gemini's `imageConfig` for a requested size: the nearest supported aspect ratio (compared in
 * log space, so 2:1 is as far from 1:1 as 1:2) and the size class of the longest edge. A model
 * whose name fixes the size class (`-1k`, `-2k`, `-4k`) keeps it when the size is `auto`.
 */
export function geminiImageConfig(
  size: string,
  modelSizeClass?: "1K" | "2K" | "4K",
): { aspectRatio?: string; imageSize?: string } {
  const dimensions = parseSize(size);
  if (!dimensions) return modelSizeClass ? { imageSize: modelSizeClass } : {};
  const ratio = Math.log(dimensions.width / dimensions.height);
  let best = GEMINI_RATIOS[0];
  for (const candidate of GEMINI_RATIOS) {
    if (Math.abs(Math.log(candidate[1]) - ratio) < Math.abs(Math.log(best[1]) - ratio)) {
      best = candidate;
    }
  }
  const edge = Math.max(dimensions.width, dimensions.height);
  const imageSize = edge <= 1024 ? "1K" : edge <= 2048 ? "2K" : "4K";
  return { aspectRatio: best[0], imageSize };
}

/** The size class a model name carries (`gen-image-2-4k` → `4K`). */
export function modelSizeClass(model: string): "1K" | "2K" | "4K" | undefined {
  const match = /-(1k|2k|4k)$/i.exec(model);
  return match ? (match[1].toUpperCase() as "1K" | "2K" | "4K") : undefined;
}
