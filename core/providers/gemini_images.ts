/**
 * Image models on the `gemini` channel type: a generation or edit becomes `generateContent` with
 * `responseModalities: ["IMAGE"]`; the instruction text and source images go in one `parts`
 * array. Gemini draws one image per call and has no mask or quality option.
 */

import type { ImageJob, UpstreamImage } from "../jobs/image_job.ts";
import { parseSize } from "../jobs/image_job.ts";
import { UpstreamAttemptError } from "../upstream/attempt.ts";
import { modelSizeTier, type SizeTier, sizeTier } from "../jobs/image_size_tiers.ts";
import { type GeminiResponse, geminiResponseSchema } from "../formats/gemini/answer_schemas.ts";
import { readLenient } from "../util/lenient_schema.ts";

/** Fields of an image job that a Gemini image model cannot honour. */
export function geminiIgnoredImageFields(job: ImageJob): string[] {
  const ignored: string[] = [];
  if (job.mask) ignored.push("mask");
  if (job.quality !== "auto") ignored.push("quality");
  if (job.user) ignored.push("user");
  return ignored;
}

/** The body of one generateContent call for `job`. */
export function geminiImageBody(job: ImageJob): Record<string, unknown> {
  const parts: unknown[] = [{ text: job.prompt }];
  for (const image of job.images) {
    parts.push({ inlineData: { mimeType: image.mimeType, data: image.bytes.toBase64() } });
  }
  const imageConfig = geminiImageConfig(job.size, modelSizeTier(job.model));
  return {
    contents: [{ role: "user", parts }],
    generationConfig: {
      responseModalities: ["IMAGE"],
      ...(Object.keys(imageConfig).length ? { imageConfig } : {}),
    },
  };
}

/** Every image part of a generateContent answer, wherever it sits among the parts. */
export function imagesOfGeminiAnswer(answer: GeminiResponse): UpstreamImage[] {
  const images: UpstreamImage[] = [];
  for (const candidate of answer.candidates) {
    for (const part of candidate.content?.parts ?? []) {
      const data = part.inlineData?.data;
      const mimeType = part.inlineData?.mimeType ?? "image/png";
      if (data && mimeType.startsWith("image/")) images.push({ b64: data, mimeType });
    }
  }
  return images;
}

/** Reads one generateContent answer of an image call; no image is a failed attempt. */
export function readGeminiImageAnswer(text: string): UpstreamImage[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UpstreamAttemptError("The upstream answered with invalid JSON", { retryable: true });
  }
  const answer = readLenient(geminiResponseSchema, json);
  const blocked = answer.promptFeedback?.blockReason;
  if (blocked) {
    throw new UpstreamAttemptError(`The upstream refused the prompt (${blocked})`, {
      retryable: false,
      status: 400,
      upstreamCode: "content_policy_violation",
    });
  }
  const images = imagesOfGeminiAnswer(answer);
  if (images.length === 0) {
    const reason = answer.candidates[0]?.finishReason;
    throw new UpstreamAttemptError(
      `The upstream answered without an image${reason ? ` (finishReason ${reason})` : ""}`,
      { retryable: true },
    );
  }
  return images;
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
  modelSizeClass?: SizeTier,
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
  return { aspectRatio: best[0], imageSize: sizeTier(size) };
}
