/**
 * The `openai-images` channel type: an OpenAI Images–compatible upstream (JSON generations,
 * multipart edits). `response_format` is never sent: gpt-image models refuse it and always answer
 * base64, older models answer URLs; the gateway converts whatever comes back.
 */

import type { ImageJob, UpstreamImage } from "../jobs/image_job.ts";
import { isDataUrl } from "../media/data_url.ts";
import { UpstreamAttemptError } from "../upstream/attempt.ts";
import type { UpstreamRequest } from "../upstream/call.ts";
import { OPENAI_ERRORS } from "./openai_errors.ts";
import { bearerAuth, type Provider, type UpstreamTarget } from "./provider.ts";
import { openAIImagesAnswerSchema } from "./openai_images_schemas.ts";
import { readLenient } from "../util/lenient_schema.ts";
import { OPENAI_MODEL_LIST } from "./model_list.ts";

/** The images call for `job` on `target`: JSON generations, multipart edits. */
export function buildOpenAIImagesRequest(
  { channel, apiKey, model }: UpstreamTarget,
  job: ImageJob,
): UpstreamRequest {
  const headers: Record<string, string> = {
    ...bearerAuth(apiKey),
    "accept": "application/json",
  };
  const fields: Record<string, string | number> = {
    model,
    prompt: job.prompt,
    n: job.n,
  };
  if (job.size !== "auto") fields.size = job.size;
  if (job.quality !== "auto") fields.quality = job.quality;
  if (job.user) fields.user = job.user;
  if (job.action === "generations") {
    headers["content-type"] = "application/json";
    return {
      url: `${channel.base_url}/images/generations`,
      init: { method: "POST", headers, body: JSON.stringify(fields) },
    };
  }
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, String(value));
  const imageField = job.images.length > 1 ? "image[]" : "image";
  for (const image of job.images) {
    form.append(imageField, new Blob([image.bytes], { type: image.mimeType }), image.filename);
  }
  if (job.mask) {
    form.append("mask", new Blob([job.mask.bytes], { type: job.mask.mimeType }), job.mask.filename);
  }
  return { url: `${channel.base_url}/images/edits`, init: { method: "POST", headers, body: form } };
}

/** Reads an images answer; a body without usable images is a failed attempt. */
export function readOpenAIImagesAnswer(text: string): UpstreamImage[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UpstreamAttemptError("The upstream answered with invalid JSON", { retryable: true });
  }
  const images: UpstreamImage[] = [];
  for (const item of readLenient(openAIImagesAnswerSchema, json).data) {
    const revisedPrompt = item.revised_prompt;
    if (item.b64_json) {
      images.push({ b64: item.b64_json, mimeType: "image/png", revisedPrompt });
    } else if (item.url !== undefined && isDataUrl(item.url)) {
      // A data URL is the image itself: decoded and judged by its bytes, never linked.
      images.push({ b64: item.url, mimeType: "image/png", revisedPrompt });
    } else if (item.url) {
      images.push({ url: item.url, mimeType: "image/png", revisedPrompt });
    }
  }
  if (images.length === 0) {
    throw new UpstreamAttemptError("The upstream answered without any image", {
      retryable: true,
    });
  }
  return images;
}

export const openAIImagesProvider: Provider = {
  kinds: ["image"],
  baseUrlExample: "https://api.openai.com/v1",
  appendedPaths: /\/images(\/(generations|edits))?$/,
  errors: OPENAI_ERRORS,
  modelList: OPENAI_MODEL_LIST,
  keyless: true,
  image: {
    requests: (target, job) => Promise.resolve([buildOpenAIImagesRequest(target, job)]),
    readImages: readOpenAIImagesAnswer,
    ignoredFields: () => [],
  },
};
