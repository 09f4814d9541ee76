/**
 * Image models on the `gemini` channel type: a generation or edit becomes `generateContent` with
 * `responseModalities: ["IMAGE"]`; the instruction text and source images go in one `parts`
 * array. Gemini draws one image per call and has no mask or quality option.
 */

import type { Channel } from "../channel_schema.ts";
import type { ImageJob, UpstreamImage } from "../images/image_job.ts";
import { geminiImageConfig, modelSizeClass } from "../images/sizes.ts";
import { isRetryableStatus, UpstreamAttemptError } from "../upstream.ts";

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

/** The URL and init of a generateContent call on `channel`. */
export function buildGeminiRequest(
  channel: Channel,
  upstreamKey: string,
  upstreamModel: string,
  body: unknown,
  method: "generateContent" | "streamGenerateContent" = "generateContent",
): { url: string; init: RequestInit } {
  const query = method === "streamGenerateContent" ? "?alt=sse" : "";
  return {
    url: `${channel.base_url}/v1beta/models/${encodeURIComponent(upstreamModel)}:${method}${query}`,
    init: {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-goog-api-key": upstreamKey,
      },
      body: JSON.stringify(body),
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

/** Reads a Google-style error answer into an attempt error. */
export async function readGeminiError(response: Response): Promise<UpstreamAttemptError> {
  const text = await response.text().catch(() => "");
  let message = `HTTP ${response.status}`;
  let code: string | undefined;
  try {
    const error = JSON.parse(text)?.error;
    if (typeof error?.message === "string") message = `HTTP ${response.status}: ${error.message}`;
    if (typeof error?.status === "string") code = error.status.toLowerCase();
  } catch {
    // not JSON: keep the status only
  }
  // Google answers a bad API key with 400 INVALID_ARGUMENT: that is the channel's fault.
  const keyRefused = response.status === 401 || response.status === 403 ||
    /API key not valid/i.test(message);
  if (keyRefused) {
    message = `HTTP ${response.status}: the channel's upstream credential was refused`;
  }
  return new UpstreamAttemptError(message, {
    retryable: keyRefused || isRetryableStatus(response.status),
    status: keyRefused ? 502 : response.status,
    upstreamCode: code,
    retryAfter: response.headers.get("retry-after") ?? undefined,
  });
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}
