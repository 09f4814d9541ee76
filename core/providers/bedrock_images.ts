/**
 * Image generation on `bedrock` channels, through InvokeModel (`POST {base_url}/model/{id}/invoke`,
 * signed as the text calls are), with the body of the model's family. Amazon Nova Canvas
 * (`amazon.nova-canvas-v1:0`) and Titan Image Generator (`amazon.titan-image-generator-v2:0`, v1)
 * share one body:
 *
 * `{"taskType": "TEXT_IMAGE", "textToImageParams": {"text"}, "imageGenerationConfig":
 * {"numberOfImages": 1–5, "width", "height", "quality": "standard" | "premium"}}`, answered
 * `{"images": [base64 PNG…], "error"?}`.
 *
 * OpenAI's `n` is split into calls of at most 5 images; `size` `auto` is 1024x1024 (both models'
 * default); `quality` `high` is `premium`, any other (`auto`, `low`, `medium`) `standard`. Nova
 * Canvas makes any size with edges of 320–4,096 pixels in multiples of 16, an aspect ratio of at
 * most 4:1 and at most 4,194,304 pixels; Titan only the sizes of its list. Prompts are at most
 * 1,024 characters (Nova Canvas) or 512 (Titan). Another size, a longer prompt, an edit
 * (these bodies draw from text only) or a model of another family is refused before anything is
 * held. An inference profile or a foundation-model ARN is read as the model it names.
 *
 * Stable Diffusion 3.5 Large (`stability.sd3-5-large-v1:0`) draws one image a call from
 * `{"prompt" (at most 10,000 characters), "aspect_ratio", "output_format": "png"}`, answered
 * `{"seeds", "finish_reasons": [null], "images": [base64]}`; it makes one size of each aspect
 * ratio (about a megapixel), so only those sizes are taken, and has no quality option.
 */

import type { ImageJob, UpstreamImage } from "../jobs/image_job.ts";
import { parseSize } from "../jobs/image_job.ts";
import { UpstreamAttemptError } from "../upstream/attempt.ts";
import type { UpstreamRequest } from "../upstream/call.ts";
import { bedrockAuthHeaders } from "./bedrock_auth.ts";
import { bedrockCountingModel, bedrockModelPath } from "./bedrock_model_id.ts";
import type { ImageProvider, UpstreamTarget } from "./provider.ts";

/** The most images one InvokeModel call makes. */
export const BEDROCK_IMAGES_PER_CALL = 5;

/** The size `auto` asks (Nova Canvas' and Titan's default). */
const AUTO_SIZE = { width: 1024, height: 1024 };

/** Titan Image Generator's sizes (its documentation's list; no other is made). */
const TITAN_SIZES = [
  "1024x1024",
  "768x768",
  "512x512",
  "768x1152",
  "384x576",
  "1152x768",
  "576x384",
  "768x1280",
  "384x640",
  "1280x768",
  "640x384",
  "896x1152",
  "448x576",
  "1152x896",
  "576x448",
  "768x1408",
  "384x704",
  "1408x768",
  "704x384",
  "640x1408",
  "320x704",
  "1408x640",
  "704x320",
  "1152x640",
  "1173x640",
];

/** Why Nova Canvas cannot make `width`x`height`, or undefined. */
function novaCanvasSizeProblem(width: number, height: number): string | undefined {
  if ([width, height].some((edge) => edge < 320 || edge > 4096 || edge % 16 !== 0)) {
    return "each edge must be 320 to 4096 pixels, a multiple of 16";
  }
  if (Math.max(width, height) > 4 * Math.min(width, height)) {
    return "the aspect ratio must be at most 4:1";
  }
  if (width * height > 4_194_304) return "it makes at most 4,194,304 pixels (2048x2048)";
  return undefined;
}

/** Stable Diffusion 3.5 Large's aspect ratios by the one size it makes of each. */
const STABILITY_RATIOS: Record<string, string> = {
  "1024x1024": "1:1",
  "1344x768": "16:9",
  "768x1344": "9:16",
  "1536x640": "21:9",
  "640x1536": "9:21",
  "1216x832": "3:2",
  "832x1216": "2:3",
  "1088x896": "5:4",
  "896x1088": "4:5",
};

/** What a Bedrock image model's body is and what sizes it makes. */
export interface BedrockImageFamily {
  name: "nova-canvas" | "titan-image" | "stability";
  /** The longest prompt it takes, in characters. */
  maxPrompt: number;
  /** Why the model cannot make `width`x`height`, or undefined. */
  sizeProblem(width: number, height: number): string | undefined;
}

const FAMILIES: ReadonlyArray<[RegExp, BedrockImageFamily]> = [
  [/^amazon\.nova-canvas-v1/, {
    name: "nova-canvas",
    maxPrompt: 1024,
    sizeProblem: novaCanvasSizeProblem,
  }],
  [/^amazon\.titan-image-generator-v[12]/, {
    name: "titan-image",
    maxPrompt: 512,
    sizeProblem: (width, height) =>
      TITAN_SIZES.includes(`${width}x${height}`)
        ? undefined
        : `it makes only ${TITAN_SIZES.join(", ")}`,
  }],
  [/^stability\.sd3-5-large-v1/, {
    name: "stability",
    maxPrompt: 10_000,
    sizeProblem: (width, height) =>
      `${width}x${height}` in STABILITY_RATIOS
        ? undefined
        : `it makes only ${Object.keys(STABILITY_RATIOS).join(", ")}`,
  }],
];

/** The image family of Bedrock model `modelId` (an ARN or profile read as its model), or undefined. */
export function bedrockImageFamily(modelId: string): BedrockImageFamily | undefined {
  const model = bedrockCountingModel(modelId.slice(modelId.lastIndexOf("/") + 1));
  return FAMILIES.find(([pattern]) => pattern.test(model))?.[1];
}

/** The width and height `job` asks (`auto`: 1024x1024). */
function dimensionsOf(job: ImageJob) {
  return parseSize(job.size) ?? AUTO_SIZE;
}

/** Why `model` cannot serve `job` (named by the request's field), or undefined. */
export function bedrockImageRefusal(
  model: string,
  job: ImageJob,
): { param: string; message: string } | undefined {
  const family = bedrockImageFamily(model);
  if (!family) {
    return {
      param: "model",
      message: `The gateway does not know how to draw with the Bedrock model '${model}': it ` +
        "serves Amazon Nova Canvas (amazon.nova-canvas-v1:0), Titan Image Generator " +
        "(amazon.titan-image-generator-v2:0, -v1) and Stable Diffusion 3.5 Large " +
        "(stability.sd3-5-large-v1:0)",
    };
  }
  if (job.action !== "generations") {
    return {
      param: "model",
      message: `Image edits are not served on Bedrock channels; the model '${job.model}' ` +
        "only generates images from text",
    };
  }
  if (job.prompt.length > family.maxPrompt) {
    return {
      param: "prompt",
      message: `prompt must be at most ${family.maxPrompt} characters for the model ` +
        `'${job.model}'; it has ${job.prompt.length}`,
    };
  }
  const { width, height } = dimensionsOf(job);
  const problem = family.sizeProblem(width, height);
  return problem
    ? {
      param: "size",
      message: `size '${width}x${height}' is not a size this model makes: ${problem}`,
    }
    : undefined;
}

/**
 * The InvokeModel bodies of `job` for `family`, `job.n` images in all: at most 5 a call (Nova
 * Canvas, Titan), or one (Stability).
 */
export function bedrockImageBodies(
  family: BedrockImageFamily,
  job: ImageJob,
): Array<Record<string, unknown>> {
  const { width, height } = dimensionsOf(job);
  if (family.name === "stability") {
    return Array.from({ length: job.n }, () => ({
      prompt: job.prompt,
      aspect_ratio: STABILITY_RATIOS[`${width}x${height}`],
      output_format: "png",
    }));
  }
  const bodies: Array<Record<string, unknown>> = [];
  for (let left = job.n; left > 0; left -= BEDROCK_IMAGES_PER_CALL) {
    bodies.push({
      taskType: "TEXT_IMAGE",
      textToImageParams: { text: job.prompt },
      imageGenerationConfig: {
        numberOfImages: Math.min(left, BEDROCK_IMAGES_PER_CALL),
        width,
        height,
        quality: job.quality === "high" ? "premium" : "standard",
      },
    });
  }
  return bodies;
}

/** The signed InvokeModel calls of `job` on `target`. */
export async function bedrockImageRequests(
  target: UpstreamTarget,
  job: ImageJob,
): Promise<UpstreamRequest[]> {
  const { channel, apiKey, model } = target;
  const refusal = bedrockImageRefusal(model, job);
  if (refusal) throw new UpstreamAttemptError(refusal.message, { retryable: false });
  const family = bedrockImageFamily(model)!;
  const url = channel.base_url + bedrockModelPath(model, "invoke");
  return await Promise.all(
    bedrockImageBodies(family, job).map(async (body) => {
      const sent = JSON.stringify(body);
      const headers = await bedrockAuthHeaders(channel, apiKey, {
        method: "POST",
        url,
        headers: { "content-type": "application/json", accept: "application/json" },
        body: sent,
      });
      return { url, init: { method: "POST", headers, body: sent } };
    }),
  );
}

/**
 * The images of one InvokeModel answer (`{images, error?}`, Stability's `{images,
 * finish_reasons}`); an `error` or a `Filter reason: …` with no image (the model's content filter)
 * is a final refusal, no image at all a failed attempt.
 */
export function readBedrockImages(text: string): UpstreamImage[] {
  let answer: { images?: unknown; error?: unknown; finish_reasons?: unknown };
  try {
    answer = JSON.parse(text);
  } catch {
    throw new UpstreamAttemptError("The upstream answered with invalid JSON", { retryable: true });
  }
  const listed = answer !== null && typeof answer === "object" && Array.isArray(answer.images)
    ? answer.images
    : [];
  const images = listed.filter((image): image is string => typeof image === "string" && !!image)
    .map((b64) => ({ b64, mimeType: "image/png" }));
  if (images.length) return images;
  const reasons = answer !== null && typeof answer === "object" &&
      Array.isArray(answer.finish_reasons)
    ? answer.finish_reasons.filter((reason) => typeof reason === "string")
    : [];
  const filtered = reasons.find((reason: string) => reason.startsWith("Filter reason"));
  const error = answer !== null && typeof answer === "object" && typeof answer.error === "string"
    ? answer.error
    : filtered;
  if (error) {
    throw new UpstreamAttemptError(`The upstream refused the prompt: ${error}`, {
      retryable: false,
      status: 400,
      upstreamCode: "content_policy_violation",
    });
  }
  throw new UpstreamAttemptError(
    `The upstream answered without an image${reasons.length ? ` (${reasons[0]})` : ""}`,
    { retryable: true },
  );
}

/** Fields of `job` Bedrock model `model` cannot honour. */
export function bedrockIgnoredImageFields(model: string, job: ImageJob): string[] {
  const stability = bedrockImageFamily(model)?.name === "stability";
  return [
    ...(stability && job.quality !== "auto" ? ["quality"] : []),
    ...(job.user !== undefined ? ["user"] : []),
  ];
}

export const bedrockImageProvider: ImageProvider = {
  requests: bedrockImageRequests,
  readImages: readBedrockImages,
  ignoredFields: (job, model) => bedrockIgnoredImageFields(model, job),
  refusal: bedrockImageRefusal,
};
