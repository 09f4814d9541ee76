/** A video task as the providers see it, and the upstream task states they report. */

/** What a reference file is. */
export type ReferenceKind = "image" | "video" | "audio";

export const VIDEO_RESOLUTIONS = ["480p", "720p", "1080p", "2k", "4k"] as const;
export type VideoResolution = typeof VIDEO_RESOLUTIONS[number];

/** The aspect ratios a video request may name (the upstream's list). */
export const VIDEO_RATIOS = ["adaptive", "16:9", "4:3", "1:1", "3:4", "9:16", "21:9"] as const;
export type VideoRatio = typeof VIDEO_RATIOS[number];

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

/** A reference file kept in the media store for the task's life. */
export interface VideoReference {
  field: string;
  kind: ReferenceKind;
  media_id: string;
  content_type: string;
  filename: string;
  /** Seconds read by ffprobe (video and audio on per-second models); null when not probed. */
  seconds: number | null;
}

export interface VideoJob {
  model: string;
  prompt: string;
  duration: number;
  ratio: string;
  references: VideoReference[];
}

/**
 * One upstream poll, in neutral terms. A succeeded task has a public `videoUrl` passed on as it
 * is, or a `download` the gateway fetches with the channel's key (the provider's `download`
 * builds the call from it: a video id, an address) and hosts itself.
 */
export type UpstreamVideoState =
  | { state: "queued" | "running"; progress?: string }
  | { state: "succeeded"; videoUrl: string }
  | { state: "succeeded"; download: string }
  | { state: "failed"; reason: string };

/** What an upstream is asked to make, as far as it may refuse it (known at submission). */
export interface VideoAsk {
  duration: number;
  ratio: string;
  references: Array<Pick<VideoReference, "field" | "kind">>;
}

/** A field of a video request an upstream cannot honour: refused with a 400 naming it. */
export interface VideoRefusal {
  param: string;
  message: string;
}
