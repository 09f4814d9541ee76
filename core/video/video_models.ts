/** What the video model names mean: resolution, billing family and accepted ratios (pure). */

export const VIDEO_RESOLUTIONS = ["480p", "720p", "1080p", "2k", "4k"] as const;
export type VideoResolution = typeof VIDEO_RESOLUTIONS[number];

/** The resolution a model name carries, e.g. `vid-2-1080p`; null when the name carries none. */
export function resolutionOfModel(model: string): VideoResolution | null {
  const suffix = /-(480p|720p|1080p|2k|4k)$/i.exec(model)?.[1]?.toLowerCase();
  return (suffix as VideoResolution | undefined) ?? null;
}

/**
 * The resolution to ask the upstream for: the model name's, else the channel's
 * `video_resolution` (the spec's route configuration for `vid-2-cheap`), else 720p.
 */
export function resolutionFor(model: string, channelResolution?: string): VideoResolution {
  return resolutionOfModel(model) ?? (channelResolution as VideoResolution | undefined) ?? "720p";
}

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
