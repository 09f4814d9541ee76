/**
 * What a video model accepts (pure): its ratios, its default ratio, whether its reference
 * durations are read, and its limits. Each comes from the catalog entry's `limits` where set,
 * else from the model's name (`vid-2-cheap` has the fixed-price rules), else from the upstream's
 * defaults. Never from the price type: a per-task price on another model changes only the bill.
 * Resolutions are in video_job.ts, which providers read too.
 */

import type { CatalogModel, ModelLimits } from "../channels/catalog.ts";
import { type ReferenceKind, VIDEO_RATIOS } from "../jobs/video_job.ts";
import { REFERENCE_LIMITS } from "./reference_media.ts";

export const RATIOS = VIDEO_RATIOS;

/** Prompts longer than this are refused by default (the upstream takes about 5,000 characters). */
export const DEFAULT_VIDEO_PROMPT_MAX_CHARS = 5000;

/** Rules a model has by its name, under whatever the catalog's `limits` set. */
const RULES_BY_NAME: Record<string, ModelLimits> = {
  "vid-2-cheap": {
    ratios: RATIOS.filter((ratio) => ratio !== "adaptive"),
    default_ratio: "16:9",
    probe_references: false,
  },
};

export interface ReferenceRule {
  maxBytes: number;
  /** Seconds; 0 and Infinity for images (no duration). */
  minSeconds: number;
  maxSeconds: number;
}

/** Everything a video request is checked against, for one model. */
export interface VideoRules {
  ratios: readonly string[];
  defaultRatio: string;
  /** Read and check the reference video's and audio's durations (per-second models always do). */
  probeReferences: boolean;
  promptMaxChars: number;
  /** A reference audio is accepted without a reference image or video. */
  audioAlone: boolean;
  reference: Record<ReferenceKind, ReferenceRule>;
}

/** The rules of catalog model `model`. */
export function videoRulesOf(model: Pick<CatalogModel, "id" | "limits">): VideoRules {
  const byName = RULES_BY_NAME[model.id] ?? {};
  const limits: ModelLimits = { ...byName, ...model.limits };
  // The ratios and the default ratio go together: a catalog that sets either sets both.
  const own = model.limits ?? {};
  const ratioRules = own.ratios || own.default_ratio ? own : byName;
  const ratios: readonly string[] = ratioRules.ratios ?? RATIOS;
  const bytes = limits.reference_max_bytes ?? {};
  return {
    ratios,
    defaultRatio: ratioRules.default_ratio ??
      (ratios.includes("adaptive") ? "adaptive" : ratios[0]),
    probeReferences: limits.probe_references ?? true,
    promptMaxChars: limits.prompt_max_chars ?? DEFAULT_VIDEO_PROMPT_MAX_CHARS,
    audioAlone: limits.audio_alone ?? false,
    reference: {
      image: {
        maxBytes: bytes.image ?? REFERENCE_LIMITS.image.maxBytes,
        minSeconds: 0,
        maxSeconds: Infinity,
      },
      video: {
        maxBytes: bytes.video ?? REFERENCE_LIMITS.video.maxBytes,
        minSeconds: limits.reference_video_seconds?.min ?? REFERENCE_LIMITS.video.minSeconds!,
        maxSeconds: limits.reference_video_seconds?.max ?? REFERENCE_LIMITS.video.maxSeconds!,
      },
      audio: {
        maxBytes: bytes.audio ?? REFERENCE_LIMITS.audio.maxBytes,
        minSeconds: 0,
        maxSeconds: limits.reference_audio_max_seconds ?? REFERENCE_LIMITS.audio.maxSeconds!,
      },
    },
  };
}

/**
 * The largest file each reference field may be for any of `models` (the multipart parser's
 * limits, before the request's model is known), never below the defaults.
 */
export function largestReferenceBytes(
  models: readonly Pick<CatalogModel, "id" | "kind" | "limits">[],
): Record<ReferenceKind, number> {
  const largest = {
    image: REFERENCE_LIMITS.image.maxBytes,
    video: REFERENCE_LIMITS.video.maxBytes,
    audio: REFERENCE_LIMITS.audio.maxBytes,
  };
  for (const model of models) {
    if (model.kind !== "video" || !model.limits?.reference_max_bytes) continue;
    const { reference } = videoRulesOf(model);
    for (const kind of ["image", "video", "audio"] as const) {
      largest[kind] = Math.max(largest[kind], reference[kind].maxBytes);
    }
  }
  return largest;
}

export const MIN_DURATION = 4;
export const MAX_DURATION = 15;
export const DEFAULT_DURATION = 5;
