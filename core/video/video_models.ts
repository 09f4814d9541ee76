/**
 * What the video model names mean: billing family and accepted ratios (pure). Resolutions are
 * in video_job.ts, which providers read too.
 */

export const RATIOS = ["adaptive", "16:9", "4:3", "1:1", "3:4", "9:16", "21:9"] as const;

/** Ratios a model accepts: fixed-price models do not accept `adaptive`. */
export function ratiosFor(perTask: boolean): readonly string[] {
  return perTask ? RATIOS.filter((ratio) => ratio !== "adaptive") : RATIOS;
}

/** The ratio used when a request names none: `adaptive` where allowed, else 16:9. */
export function defaultRatio(perTask: boolean): string {
  return perTask ? "16:9" : "adaptive";
}

export const MIN_DURATION = 4;
export const MAX_DURATION = 15;
export const DEFAULT_DURATION = 5;
