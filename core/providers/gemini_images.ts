/**
 * Image models on the `gemini` channel type: a generation or edit becomes `generateContent` with
 * `responseModalities: ["IMAGE"]`; the instruction text and source images go in one `parts`
 * array. Gemini draws one image per call and has no mask or quality option.
 */

import type { ImageJob, UpstreamImage } from "../images/image_job.ts";
import { geminiImageConfig, modelSizeClass } from "../images/sizes.ts";
import { UpstreamAttemptError } from "../upstream.ts";

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
    parts.push({ inlineData: { mimeType: image.mimeType, data: base64(image.bytes) } });
  }
  const imageConfig = geminiImageConfig(job.size, modelSizeClass(job.model));
  return {
    contents: [{ role: "user", parts }],
    generationConfig: {
      responseModalities: ["IMAGE"],
      ...(Object.keys(imageConfig).length ? { imageConfig } : {}),
    },
  };
}

interface GeminiAnswer {
  candidates?: Array<{
    content?: { parts?: Array<{ inlineData?: { mimeType?: string; data?: string } }> };
    finishReason?: string;
  }>;
  promptFeedback?: { blockReason?: string };
}

/** Every image part of a generateContent answer, wherever it sits among the parts. */
export function imagesOfGeminiAnswer(answer: GeminiAnswer): UpstreamImage[] {
  const images: UpstreamImage[] = [];
  for (const candidate of answer.candidates ?? []) {
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
  let answer: GeminiAnswer;
  try {
    answer = JSON.parse(text);
  } catch {
    throw new UpstreamAttemptError("The upstream answered with invalid JSON", { retryable: true });
  }
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
    const reason = answer.candidates?.[0]?.finishReason;
    throw new UpstreamAttemptError(
      `The upstream answered without an image${reason ? ` (finishReason ${reason})` : ""}`,
      { retryable: true },
    );
  }
  return images;
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}
