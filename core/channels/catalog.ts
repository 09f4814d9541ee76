/** The model catalog: what each public model id is, who may use it and what it costs. */

import { z } from "zod";
import { patchShape } from "../util/patch_schema.ts";
import {
  audioPriceSchema,
  embeddingPriceSchema,
  imagePriceSchema,
  moderationPriceSchema,
  rerankPriceSchema,
  type TextPrice,
  textPriceSchema,
  videoPriceSchema,
} from "../billing/price_schema.ts";
import { VIDEO_RATIOS } from "../jobs/video_job.ts";

export type { TextPrice };

/**
 * `audio` is one kind for every audio interface: transcriptions and translations
 * (/v1/audio/transcriptions|translations, priced `{per_second}` or `{input, output}` per million
 * tokens) and speech (/v1/audio/speech, priced `{per_character}`). The price unit says how a
 * request is billed; an interface refuses a model whose unit it cannot bill (a transcription of
 * a per_character model is a 400).
 */
export const modelKindSchema = z.enum([
  "text",
  "image",
  "video",
  "rerank",
  "moderation",
  "audio",
  "embedding",
]);

export type ModelKind = z.infer<typeof modelKindSchema>;

/** The price of a model `create_models` makes for a channel (disabled until priced): zero. */
export const DISABLED_MODEL_PRICES: Record<ModelKind, ModelInput["price"]> = {
  text: { input: 0, output: 0 },
  image: { per_image: 0 },
  video: { per_second: 0 },
  rerank: { per_search: 0 },
  moderation: { per_request: 0 },
  audio: { per_second: 0 },
  embedding: { input: 0 },
};

/**
 * Limits and rules of a model that the spec does not state: they are the upstream's, so a model
 * whose upstream accepts more can say so. Every field is optional; an absent one keeps its default
 * (docs/configuration.md#model-limits): the upstream's own limits (Seedance 2.0 on ModelArk for
 * video), and for `vid-2-cheap` by its name the fixed-price rules (no `adaptive`, 16:9, no
 * probing). A field that does not concern the model's kind is ignored.
 */
export const modelLimitsSchema = z.strictObject({
  /** Video: the longest prompt, in characters (default 5,000). */
  prompt_max_chars: z.int().positive().optional(),
  /** Image: the longest `user`, in characters (default 256). */
  user_max_chars: z.int().positive().optional(),
  /** Video: a reference video's shortest and longest duration, in seconds (default 2–15). */
  reference_video_seconds: z.strictObject({
    min: z.number().nonnegative(),
    max: z.number().positive(),
  }).refine((range) => range.min <= range.max, {
    message: "min must not be more than max",
  }).optional(),
  /** Video: a reference audio's longest duration, in seconds (default 15). */
  reference_audio_max_seconds: z.number().positive().optional(),
  /** Video: the largest reference file of each kind, in bytes (default 30, 50 and 15 MiB). */
  reference_max_bytes: z.strictObject({
    image: z.int().positive().optional(),
    video: z.int().positive().optional(),
    audio: z.int().positive().optional(),
  }).optional(),
  /** Video: a reference audio is accepted with no reference image or video (default false). */
  audio_alone: z.boolean().optional(),
  /** Video: the ratios accepted (default all; `vid-2-cheap`: all but `adaptive`). */
  ratios: z.array(z.enum(VIDEO_RATIOS)).min(1).optional(),
  /** Video: the ratio of a request that names none (default `adaptive`, else the first ratio). */
  default_ratio: z.enum(VIDEO_RATIOS).optional(),
  /**
   * Video: read the reference video's and audio's durations and check them (default true;
   * `vid-2-cheap`: false). A per-second model reads them whatever this says: they are billed.
   */
  probe_references: z.boolean().optional(),
}).refine(
  (limits) =>
    !limits.ratios || !limits.default_ratio || limits.ratios.includes(limits.default_ratio),
  { message: "default_ratio must be one of ratios", path: ["default_ratio"] },
);

export type ModelLimits = z.infer<typeof modelLimitsSchema>;

const modelFields = {
  kind: modelKindSchema,
  groups: z.array(z.string().min(1)).default(["default"]),
  price: z.union([
    textPriceSchema,
    imagePriceSchema,
    videoPriceSchema,
    rerankPriceSchema,
    moderationPriceSchema,
    audioPriceSchema,
    embeddingPriceSchema,
  ]),
  description: z.string().default(""),
  display_name: z.string().optional(),
  /** Output tokens assumed for the hold when a request sets no max_tokens. */
  max_output_tokens: z.int().positive().optional(),
  context_window: z.int().positive().optional(),
  /** A disabled model is not listed and answers 404 like an unknown one; its channels stay. */
  enabled: z.boolean().default(true),
  /** Limits the spec leaves to the upstream; absent fields keep their defaults. */
  limits: modelLimitsSchema.optional(),
};

export const modelInputSchema = z.strictObject(modelFields).superRefine((model, ctx) => {
  const schema = {
    text: textPriceSchema,
    image: imagePriceSchema,
    video: videoPriceSchema,
    rerank: rerankPriceSchema,
    moderation: moderationPriceSchema,
    audio: audioPriceSchema,
    embedding: embeddingPriceSchema,
  }[model.kind];
  if (!schema.safeParse(model.price).success) {
    ctx.addIssue({
      code: "custom",
      path: ["price"],
      message: {
        text: "A text model's price is {input, output, cached_input?} in units per million tokens",
        image: "An image model's price is {per_image, tiers?} in units",
        video:
          "A video model's price is {per_second} or {per_task, failure_refund_percent?} in units",
        rerank:
          "A rerank model's price is {per_search} in units per search unit or {input} in units per million tokens",
        moderation: "A moderation model's price is {per_request} in units (0: free)",
        audio:
          "An audio model's price is {per_second}, {input, output} (units per million tokens) or {per_character} in units",
        embedding: "An embedding model's price is {input} in units per million input tokens",
      }[model.kind],
    });
  }
});

/**
 * A PATCH of a catalog model changes exactly the fields it names; the merged model is then
 * checked whole against `modelInputSchema` (a new kind needs a price of that kind).
 */
export const modelPatchSchema = z.strictObject(patchShape(modelFields));

export type ModelInput = z.infer<typeof modelInputSchema>;

/** A catalog entry as stored and served. */
export interface CatalogModel extends ModelInput {
  id: string;
  /** `default` for built-in entries not yet overridden, else `admin` or `config`. */
  source: "default" | "admin" | "config";
  created_at: string;
}

/** Output tokens held for when neither the request nor the catalog says. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;

const BUILT_IN_CREATED_AT = "2026-01-01T00:00:00.000Z";

function builtIn(id: string, input: ModelInput): CatalogModel {
  return { id, ...input, source: "default", created_at: BUILT_IN_CREATED_AT };
}

function imageModel(id: string, perImage: number, description: string) {
  return builtIn(id, {
    kind: "image",
    groups: ["default"],
    price: { per_image: perImage },
    description,
    enabled: true,
  });
}

function videoModel(
  id: string,
  price: { per_second: number } | { per_task: number },
  note: string,
) {
  return builtIn(id, {
    kind: "video",
    groups: ["default"],
    price,
    description: note,
    enabled: true,
  });
}

/**
 * The spec's image and video model names, and OpenAI's default moderation model, with default
 * prices an operator overrides.
 */
export const DEFAULT_CATALOG: readonly CatalogModel[] = [
  imageModel("gen-image-2", 40_000, "Image generation and edits"),
  imageModel("gen-image-2-vip", 60_000, "Image generation, priority route"),
  imageModel("gen-image-2-official", 80_000, "Image generation, official route"),
  imageModel("gen-image-2-1k", 40_000, "Image generation, 1K output"),
  imageModel("gen-image-2-2k", 80_000, "Image generation, 2K output"),
  imageModel("gen-image-2-4k", 160_000, "Image generation, 4K output"),
  videoModel("vid-2", { per_second: 100_000 }, "Video, 720p, billed per second"),
  videoModel("vid-2-480p", { per_second: 50_000 }, "Video, 480p, billed per second"),
  videoModel("vid-2-720p", { per_second: 100_000 }, "Video, 720p, billed per second"),
  videoModel("vid-2-1080p", { per_second: 200_000 }, "Video, 1080p, billed per second"),
  videoModel("vid-2-2k", { per_second: 300_000 }, "Video, 2K, billed per second"),
  videoModel("vid-2-4k", { per_second: 500_000 }, "Video, 4K, billed per second"),
  videoModel("vid-2-cheap", { per_task: 500_000 }, "Video, 720p, fixed price per task"),
  // OpenAI's default moderation model, free as OpenAI's: served once an openai channel lists it.
  builtIn("omni-moderation-latest", {
    kind: "moderation",
    groups: ["default"],
    price: { per_request: 0 },
    description: "Moderation of text and images, free",
    enabled: true,
  }),
];

/** Whether a key of `group` with allowlist `models` may use catalog entry `model`. */
export function keyMayUseModel(
  key: { group: string; models: string[] | null },
  model: Pick<CatalogModel, "id" | "groups">,
): boolean {
  return model.groups.includes(key.group) && (key.models === null || key.models.includes(model.id));
}
