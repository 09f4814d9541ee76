/**
 * Image models on `vertex` channels. Gemini image models take the `gemini` type's
 * generateContent body (gemini_images.ts) at Vertex's URL; Imagen models (`imagen-*`) take
 * Vertex's `:predict`: `{instances: [{prompt}], parameters: {sampleCount, aspectRatio?,
 * sampleImageSize?, outputOptions: {mimeType}}}`, answered `{predictions: [{bytesBase64Encoded,
 * mimeType}]}`. Pure; vertex.ts sends the calls with the channel's bearer token.
 *
 * Imagen's limits, as Google documents them: 1 to 4 images a call (a job of more is split into
 * calls), aspect ratios 1:1, 3:4, 4:3, 9:16 and 16:9 only, no edits on the generate models, and
 * a 2K image size (`sampleImageSize`) only on Imagen 4 Standard and Ultra.
 */

import type { ImageJob, UpstreamImage } from "../jobs/image_job.ts";
import { parseSize } from "../jobs/image_job.ts";
import { sizeTier } from "../jobs/image_size_tiers.ts";
import { UpstreamAttemptError } from "../upstream/attempt.ts";
import { readGeminiImageAnswer } from "./gemini_images.ts";

/** The most images one Imagen `:predict` call draws. */
export const IMAGEN_MAX_SAMPLES = 4;

/** Imagen's aspect ratios, as width / height. */
export const IMAGEN_RATIOS: ReadonlyArray<[string, number]> = [
  ["1:1", 1],
  ["3:4", 3 / 4],
  ["4:3", 4 / 3],
  ["9:16", 9 / 16],
  ["16:9", 16 / 9],
];

/**
 * How far (as a factor) a size's shape may be from the ratio it is drawn at: 12.5% takes
 * OpenAI's 1024x1536 as 3:4 and 1536x1024 as 4:3; a 3:1 size has no ratio.
 */
const RATIO_TOLERANCE = 1.125;

/** Whether an upstream model is an Imagen model (`:predict`) rather than a Gemini one. */
export function isImagenModel(model: string): boolean {
  return /^imagen-/i.test(model);
}

/** Whether an Imagen model draws 2K images (`sampleImageSize: "2K"`). */
function takes2K(model: string): boolean {
  return /^imagen-4\.0-(ultra-)?generate/i.test(model);
}

/** The Imagen aspect ratio of `size` (undefined for `auto`, the model's 1:1), or null if none. */
export function imagenAspectRatio(size: string): string | undefined | null {
  const dimensions = parseSize(size);
  if (!dimensions) return undefined;
  const shape = Math.log(dimensions.width / dimensions.height);
  let best = IMAGEN_RATIOS[0];
  for (const candidate of IMAGEN_RATIOS) {
    if (Math.abs(Math.log(candidate[1]) - shape) < Math.abs(Math.log(best[1]) - shape)) {
      best = candidate;
    }
  }
  const off = Math.abs(Math.log(best[1]) - shape);
  return off <= Math.log(RATIO_TOLERANCE) + 1e-9 ? best[0] : null;
}

/** Why Imagen model `model` cannot serve `job`, naming the field; undefined when it can. */
export function imagenRefusal(
  model: string,
  job: ImageJob,
): { param: string; message: string } | undefined {
  if (job.action === "edits") {
    return { param: "model", message: `${job.model} draws new images only; it does not edit` };
  }
  if (imagenAspectRatio(job.size) === null) {
    return {
      param: "size",
      message: `size '${job.size}' has no aspect ratio ${job.model} draws (` +
        `${IMAGEN_RATIOS.map(([name]) => name).join(", ")}); ask for e.g. 1024x1024, 1536x1024 ` +
        `or 1024x1536`,
    };
  }
  const tier = sizeTier(job.size);
  if (tier === "4K" || (tier === "2K" && !takes2K(model))) {
    return {
      param: "size",
      message: `size '${job.size}' is larger than ${job.model} draws; ask for at most ` +
        `${takes2K(model) ? "2048x2048" : "1536x1024"}`,
    };
  }
  return undefined;
}

/** The body of one Imagen `:predict` call. */
export interface ImagenBody {
  instances: Array<{ prompt: string }>;
  parameters: {
    sampleCount: number;
    aspectRatio?: string;
    sampleImageSize?: string;
    outputOptions: { mimeType: string };
  };
}

/** The `:predict` bodies of `job` on Imagen model `model`: at most 4 images each. */
export function imagenBodies(model: string, job: ImageJob): ImagenBody[] {
  const aspectRatio = imagenAspectRatio(job.size) ?? undefined;
  const sampleImageSize = takes2K(model) && sizeTier(job.size) === "2K" ? "2K" : undefined;
  const bodies: ImagenBody[] = [];
  for (let left = job.n; left > 0; left -= IMAGEN_MAX_SAMPLES) {
    bodies.push({
      instances: [{ prompt: job.prompt }],
      parameters: {
        sampleCount: Math.min(left, IMAGEN_MAX_SAMPLES),
        ...(aspectRatio ? { aspectRatio } : {}),
        ...(sampleImageSize ? { sampleImageSize } : {}),
        outputOptions: { mimeType: "image/png" },
      },
    });
  }
  return bodies;
}

/** The images of an Imagen answer; none is a failed attempt (a filtered prompt, final). */
export function readImagenAnswer(json: { predictions?: unknown }): UpstreamImage[] {
  const predictions = Array.isArray(json.predictions) ? json.predictions : [];
  const images: UpstreamImage[] = [];
  const filtered: string[] = [];
  for (const prediction of predictions) {
    if (prediction === null || typeof prediction !== "object") continue;
    const { bytesBase64Encoded, mimeType, raiFilteredReason } = prediction as Record<
      string,
      unknown
    >;
    if (typeof bytesBase64Encoded === "string" && bytesBase64Encoded) {
      images.push({
        b64: bytesBase64Encoded,
        mimeType: typeof mimeType === "string" ? mimeType : "image/png",
      });
    } else if (typeof raiFilteredReason === "string") {
      filtered.push(raiFilteredReason);
    }
  }
  if (images.length) return images;
  if (filtered.length) {
    throw new UpstreamAttemptError(`The upstream filtered the images (${filtered[0]})`, {
      retryable: false,
      status: 400,
      upstreamCode: "content_policy_violation",
    });
  }
  throw new UpstreamAttemptError("The upstream answered without an image", { retryable: true });
}

/** One image call's answer on a vertex channel: Imagen's predictions, or a Gemini answer. */
export function readVertexImages(text: string): UpstreamImage[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UpstreamAttemptError("The upstream answered with invalid JSON", { retryable: true });
  }
  if (json !== null && typeof json === "object" && !Array.isArray(json)) {
    const answer = json as Record<string, unknown>;
    if (!("candidates" in answer) && !("promptFeedback" in answer)) return readImagenAnswer(answer);
  }
  return readGeminiImageAnswer(text);
}
