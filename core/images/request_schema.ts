/** The image requests' fields, as the spec lists them, with an error per rule. */

import { z } from "zod";
import { invalidRequest } from "../errors.ts";
import type { CatalogModel } from "../channels/catalog.ts";
import { sizeProblem } from "./sizes.ts";
import { variantSizeProblem } from "../jobs/image_size_tiers.ts";

export const DEFAULT_IMAGE_MODEL = "gen-image-2";
export const MAX_PROMPT_CHARS = 1000;
/** The longest `user` by default; a model's `limits.user_max_chars` replaces it. */
export const DEFAULT_USER_MAX_CHARS = 256;
/** Models of the spec's family that the spec does not list for edits. */
const GENERATION_ONLY_MODELS = new Set(["gen-image-2-1k", "gen-image-2-2k", "gen-image-2-4k"]);

const prompt = z.string({
  error: (issue) => issue.input === undefined ? "prompt is required" : "prompt must be a string",
}).min(1, "prompt must not be empty").max(
  MAX_PROMPT_CHARS,
  `prompt must be at most ${MAX_PROMPT_CHARS.toLocaleString("en")} characters`,
);

const size = z.string().default("auto").superRefine((value, ctx) => {
  const problem = sizeProblem(value);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

const quality = z.enum(["auto", "low", "medium", "high"], {
  error: "quality must be one of auto, low, medium, high",
}).default("auto");

const responseFormat = z.enum(["url", "b64_json"], {
  error: "response_format must be 'url' or 'b64_json'",
}).default("url");

/** Fields of a generation request the gateway reads; others are ignored and named. */
export const KNOWN_GENERATION_FIELDS = new Set([
  "model",
  "prompt",
  "n",
  "size",
  "quality",
  "response_format",
  "user",
  "stream",
]);

export const generationRequestSchema = z.object({
  model: z.string().min(1).default(DEFAULT_IMAGE_MODEL),
  prompt,
  n: z.int("n must be an integer from 1 to 10").min(1, "n must be at least 1").max(
    10,
    "n must be at most 10",
  ).default(1),
  size,
  quality,
  response_format: responseFormat,
  // Its longest length is the model's (checkUserLength), checked once the model is known.
  user: z.string({ error: "user must be a string" }).optional(),
  stream: z.literal(false, {
    error: "streamed image generation is not supported; send X-Gateway-Async-Task: true instead",
  }).optional(),
});

/** Text fields of an edit request (multipart values are strings). */
export const editFieldsSchema = z.object({
  model: z.string().min(1).default(DEFAULT_IMAGE_MODEL).superRefine((model, ctx) => {
    if (GENERATION_ONLY_MODELS.has(model)) {
      ctx.addIssue({
        code: "custom",
        message:
          `${model} does not edit images; use gen-image-2, gen-image-2-vip or gen-image-2-official`,
      });
    }
  }),
  prompt,
  n: z.string().regex(/^\d{1,2}$/, "n must be a whole number from 1 to 10").transform(Number)
    .pipe(z.int().min(1, "n must be at least 1").max(10, "n must be at most 10")).default(1),
  size,
  quality,
  response_format: responseFormat,
  // Its longest length is the model's (checkUserLength), checked once the model is known.
  user: z.string({ error: "user must be a string" }).optional(),
});

/** Refuses a `user` longer than `model` takes (400 naming `user`). */
export function checkUserLength(
  user: string | undefined,
  model: Pick<CatalogModel, "id" | "limits">,
): void {
  const max = model.limits?.user_max_chars ?? DEFAULT_USER_MAX_CHARS;
  if (user !== undefined && user.length > max) {
    throw invalidRequest(
      `user must be at most ${max} characters for the model '${model.id}'; it has ${user.length}`,
      "user",
    );
  }
}

/**
 * Refuses a size above the tier that `model`'s name carries (400 naming `param`): a variant name
 * must not buy a larger image at a smaller price.
 */
export function checkVariantSize(model: string, size: string, param = "size"): void {
  const problem = variantSizeProblem(model, size);
  if (problem) throw invalidRequest(problem, param);
}

export type GenerationRequest = z.infer<typeof generationRequestSchema>;
export type EditFields = z.infer<typeof editFieldsSchema>;
