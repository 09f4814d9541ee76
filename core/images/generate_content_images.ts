/**
 * Image models behind the generate-content interface. On a `gemini` channel the request is
 * passed through untouched but the model name (and a variant's `imageSize`, see
 * withVariantImageSize), and the answer is returned as the upstream gave it; on an
 * `openai-images` channel the text parts become the prompt, `inlineData` images make it an edit,
 * and the images come back as `inlineData` parts. Billed per image delivered.
 */

import { bytesOfBase64 } from "../util/base64.ts";
import type { Channel } from "../channels/channel_schema.ts";
import { upstreamModelName } from "../channels/routing.ts";
import { invalidRequest } from "../errors.ts";
import { timeOrderedId } from "../util/ids.ts";
import { ownerOf } from "../keys/key_schema.ts";
import { RequestBill } from "../billing/request_bill.ts";
import { UpstreamAttemptError } from "../upstream/attempt.ts";
import { type AttemptTrace, withFailover } from "../upstream/failover.ts";
import { callUpstream } from "../upstream/call.ts";
import { providerOf, upstreamTarget } from "../providers/provider_table.ts";
import { attemptImageJob, fetchableHostsFor, resolveImageModel } from "./image_generation.ts";
import { imageAnswerHeaders, IMAGES_REMEDY, settleImagesLater } from "./image_service.ts";
import type { ImageJob, InputImage } from "../jobs/image_job.ts";
import { imageBytes, undeliverableReason } from "./deliver_images.ts";
import type { RequestScope } from "../scope.ts";
import { checkInlineImages } from "./inline_images.ts";
import {
  modelSizeTier,
  type SizeTier,
  tierOfImageSize,
  variantTierProblem,
} from "../jobs/image_size_tiers.ts";

interface Part {
  text?: string;
  inlineData?: { mimeType?: string; data?: string };
}

export interface GenerateContentRequest {
  contents: Array<{ role?: string; parts: Part[] }>;
  generationConfig?: {
    responseModalities?: string[];
    candidateCount?: number;
    imageConfig?: { aspectRatio?: string; imageSize?: string };
  };
  [field: string]: unknown;
}

/** The answer: a generateContent response body, and how many images it carries. */
export interface GenerateContentAnswer {
  body: Record<string, unknown>;
  images: number;
  headers: Record<string, string>;
}

const LANDSCAPE = new Set(["3:2", "4:3", "5:4", "16:9", "21:9"]);
const PORTRAIT = new Set(["2:3", "3:4", "4:5", "9:16"]);

/** The listed images-API sizes of each tier, by orientation. */
const TIER_SIZES: Record<SizeTier, { square: string; landscape: string; portrait: string }> = {
  "1K": { square: "1024x1024", landscape: "1536x1024", portrait: "1024x1536" },
  "2K": { square: "2048x2048", landscape: "2048x1152", portrait: "1152x2048" },
  "4K": { square: "2880x2880", landscape: "3840x2160", portrait: "2160x3840" },
};

/**
 * The images-API size for a Gemini aspect ratio and `imageSize`: the size of that orientation in
 * that tier (1K when only the ratio is given; `auto` when neither is).
 */
function sizeForImageConfig(aspectRatio: string | undefined, tier: SizeTier | undefined): string {
  const sizes = TIER_SIZES[tier ?? "1K"];
  if (aspectRatio && LANDSCAPE.has(aspectRatio)) return sizes.landscape;
  if (aspectRatio && PORTRAIT.has(aspectRatio)) return sizes.portrait;
  return aspectRatio === "1:1" || tier ? sizes.square : "auto";
}

/** The image job a generate-content request describes. */
export function imageJobOfGenerateContent(
  model: string,
  request: GenerateContentRequest,
): ImageJob {
  const userParts = request.contents.filter((content) => content.role !== "model")
    .flatMap((content) => content.parts);
  const imageConfig = request.generationConfig?.imageConfig;
  const prompt = userParts.map((part) => part.text ?? "").filter(Boolean).join("\n");
  if (!prompt) throw invalidRequest("contents carry no text instruction for the image", "contents");
  const images: InputImage[] = userParts.filter((part) => part.inlineData).map((part, index) => {
    const bytes = bytesOfBase64(part.inlineData!.data ?? "");
    if (!bytes || bytes.length === 0) {
      throw invalidRequest(`inlineData ${index + 1} is not base64 image data`, "contents");
    }
    const mimeType = part.inlineData!.mimeType ?? "image/png";
    return { bytes, mimeType, filename: `image-${index + 1}.${mimeType.split("/")[1] ?? "png"}` };
  });
  return {
    action: images.length ? "edits" : "generations",
    model,
    prompt,
    n: request.generationConfig?.candidateCount ?? 1,
    size: sizeForImageConfig(imageConfig?.aspectRatio, tierOfImageSize(imageConfig?.imageSize)),
    quality: "auto",
    images,
  };
}

/**
 * Refuses an `imageSize` above the tier of a model whose name carries one: on a `gemini` channel
 * the body goes upstream as it came, so the variant's price must cover what it asks Gemini for.
 */
function checkVariantImageSize(model: string, imageSize: string | undefined): void {
  const problem = variantTierProblem(model, tierOfImageSize(imageSize), `imageSize '${imageSize}'`);
  if (problem) throw invalidRequest(problem, "generationConfig.imageConfig.imageSize");
}

/**
 * The request with the tier of a variant's name (`gen-image-2-4k` → `4K`) as its `imageSize` when
 * it names none: the variant's price is for that tier, so that is what the upstream is asked for
 * (Gemini would otherwise draw its default, 1K).
 */
export function withVariantImageSize(
  model: string,
  request: GenerateContentRequest,
): GenerateContentRequest {
  const tier = modelSizeTier(model);
  const config = request.generationConfig;
  if (!tier || config?.imageConfig?.imageSize !== undefined) return request;
  return {
    ...request,
    generationConfig: { ...config, imageConfig: { ...config?.imageConfig, imageSize: tier } },
  };
}

/** The request as it came, on an upstream that speaks generate-content natively. */
async function passThrough(
  channel: Channel,
  model: string,
  request: GenerateContentRequest,
  options: { signal: AbortSignal; trace: AttemptTrace; maxBytes: number },
): Promise<{ body: Record<string, unknown>; images: number }> {
  const provider = providerOf(channel);
  const image = provider.image!;
  const text = await callUpstream(
    channel,
    image.generateContent!(upstreamTarget(channel, model, options.trace), request),
    { ...options, errors: provider.errors },
  );
  const images = image.readImages(text).length;
  return { body: JSON.parse(text), images };
}

/** Serves a generate-content request for an image model. */
export async function serveGenerateContentImages(
  scope: RequestScope,
  input: { model: string; request: GenerateContentRequest },
): Promise<GenerateContentAnswer> {
  const { gateway, context, key, signal, publicUrl } = scope;
  const { model } = input;
  const request = withVariantImageSize(model, input.request);
  const maxBytes = gateway.options.upstreamMaxBytes.media;
  const modalities = request.generationConfig?.responseModalities ?? [];
  if (!modalities.map((value) => value.toUpperCase()).includes("IMAGE")) {
    throw invalidRequest(
      `'${model}' is an image model: set generationConfig.responseModalities to ["IMAGE"] or ["TEXT", "IMAGE"]`,
      "generationConfig.responseModalities",
    );
  }
  await checkInlineImages(request.contents);
  const job = imageJobOfGenerateContent(model, request);
  checkVariantImageSize(model, request.generationConfig?.imageConfig?.imageSize);
  if (job.n < 1 || job.n > 10) {
    throw invalidRequest("candidateCount must be from 1 to 10", "generationConfig.candidateCount");
  }
  const { order, costOf, pricingOf } = resolveImageModel(gateway, { key, job });
  const bill = new RequestBill(gateway.ledger, {
    key,
    ref: context.id,
    remedy: IMAGES_REMEDY,
    aggregate: false,
  });
  await bill.hold(costOf(job.n));
  let answer: { body: Record<string, unknown>; images: number };
  let channelId: string;
  try {
    const chosen = await withFailover(
      order,
      async (channel, trace) => {
        const image = providerOf(channel).image;
        const upstreamModel = upstreamModelName(channel, model);
        if (image?.generateContent && (image.passesThrough?.(upstreamModel) ?? true)) {
          return await passThrough(channel, model, request, { signal, trace, maxBytes });
        }
        const result = await attemptImageJob(channel, job, { signal, trace, maxBytes });
        const target = {
          publicUrl,
          owner: ownerOf(key),
          fetchableHosts: fetchableHostsFor(gateway, channel),
          signal,
        };
        const parts = [];
        for (const image of result.images.slice(0, job.n)) {
          const { bytes, mimeType } = await imageBytes(image, target).catch((error) => {
            throw new UpstreamAttemptError(undeliverableReason(error), { retryable: true });
          });
          parts.push({ inlineData: { mimeType, data: bytes.toBase64() } });
        }
        return {
          images: parts.length,
          body: {
            candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
            usageMetadata: { promptTokenCount: 0, candidatesTokenCount: 0, totalTokenCount: 0 },
            modelVersion: model,
            responseId: timeOrderedId("resp"),
          },
        };
      },
      gateway.failover(signal, context.upstreamAttempts),
    );
    answer = chosen.result;
    channelId = chosen.channel.id;
    await bill.confirmed();
  } catch (error) {
    await bill.release("generate-content image request failed");
    throw error;
  }
  if (answer.body.modelVersion !== undefined) answer.body.modelVersion = model;
  const images = Math.min(answer.images, job.n);
  const cost = costOf(images);
  context.logsLater = true;
  settleImagesLater(scope, { bill, pricing: pricingOf(images), count: images, channelId });
  return {
    body: answer.body,
    images,
    headers: imageAnswerHeaders({ channelId, ignoredFields: [], count: images, cost }),
  };
}
