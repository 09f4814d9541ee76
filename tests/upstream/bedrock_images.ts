/**
 * The image models of the simulated Bedrock runtime (tests/upstream/bedrock.ts), on
 * `POST /model/{id}/invoke`, as strict as AWS's documentation of their bodies. Amazon Nova Canvas
 * and Titan Image Generator v2 take `{taskType: "TEXT_IMAGE", textToImageParams: {text,
 * negativeText?}, imageGenerationConfig?: {numberOfImages?: 1–5, width?, height?, quality?:
 * standard | premium, cfgScale?: 1.1–10, seed?: 0–2,147,483,646}}` (text 1–1,024 characters for
 * Nova Canvas, 1–512 for Titan); Nova Canvas makes edges of 320–4,096 pixels in multiples of 16,
 * at most 4:1 and 4,194,304 pixels, Titan only its listed sizes (default 1024x1024 both).
 * Answered `{images: [base64 PNG of the asked size…]}`. Any other field or task (the simulator
 * draws from text only), a missing one or a wrong value is a ValidationException's message. Each
 * image is one colour, derived from the model, prompt, quality and index (`bedrockImageColor`).
 *
 * Stable Diffusion 3.5 Large takes `{prompt (at most 10,000 characters), negative_prompt?,
 * aspect_ratio?: 16:9 | 1:1 | 21:9 | 2:3 | 3:2 | 4:5 | 5:4 | 9:16 | 9:21, mode?: text-to-image,
 * seed?: 0–4,294,967,294, output_format?: png}` (the simulator writes PNG only, and draws from text
 * only) and answers one image of its ratio's size (`STABILITY_SIZES`) as `{seeds, finish_reasons:
 * [null], images}` (quality `standard` in its colour); a prompt with `FILTERED` in it is answered
 * `{seeds, finish_reasons: ["Filter reason: prompt"]}`, as its content filter answers.
 */

import { solidRgbPng } from "../helpers/png_fixtures.ts";
import { simulatedImageColor } from "./openai_images.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

export const BEDROCK_TEST_NOVA_CANVAS = "amazon.nova-canvas-v1:0";
export const BEDROCK_TEST_TITAN_IMAGE = "amazon.titan-image-generator-v2:0";
export const BEDROCK_TEST_STABILITY = "stability.sd3-5-large-v1:0";

/** The image models the simulator serves. */
export const BEDROCK_IMAGE_MODELS = [
  BEDROCK_TEST_NOVA_CANVAS,
  BEDROCK_TEST_TITAN_IMAGE,
  BEDROCK_TEST_STABILITY,
];

/** The size Stable Diffusion 3.5 Large makes of each aspect ratio. */
export const STABILITY_SIZES: Record<string, [number, number]> = {
  "1:1": [1024, 1024],
  "16:9": [1344, 768],
  "9:16": [768, 1344],
  "21:9": [1536, 640],
  "9:21": [640, 1536],
  "3:2": [1216, 832],
  "2:3": [832, 1216],
  "5:4": [1088, 896],
  "4:5": [896, 1088],
};

const TITAN_SIZES = new Set([
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
]);

function invalid(detail: string): string {
  return `Malformed input request: ${detail}, please reformat your input and try again.`;
}

function extraneous(body: Json, allowed: string[], at: string): string | undefined {
  const extra = Object.keys(body).find((field) => !allowed.includes(field));
  return extra === undefined
    ? undefined
    : invalid(`${at}: extraneous key [${extra}] is not permitted`);
}

function isObject(value: unknown): value is Record<string, Json> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function isInteger(value: unknown, min: number, max: number): boolean {
  return Number.isInteger(value) && (value as number) >= min && (value as number) <= max;
}

/** The colour of image `index` the simulator draws for this call. */
export function bedrockImageColor(
  modelId: string,
  prompt: string,
  quality: string,
  index: number,
): [number, number, number] {
  const [r, g, b] = simulatedImageColor(`bedrock:${modelId}:${quality}:${prompt}`, index);
  return [r, g, b];
}

/** Why the model cannot make `width`x`height`, or undefined. */
function sizeRefusal(nova: boolean, width: unknown, height: unknown): string | undefined {
  if (!Number.isInteger(width) || !Number.isInteger(height)) {
    return invalid("#/imageGenerationConfig: width and height must be integers");
  }
  const [w, h] = [width as number, height as number];
  if (!nova) {
    return TITAN_SIZES.has(`${w}x${h}`)
      ? undefined
      : invalid(`#/imageGenerationConfig: ${w}x${h} is not a supported image size`);
  }
  if ([w, h].some((edge) => edge < 320 || edge > 4096)) {
    return invalid("#/imageGenerationConfig: width and height must be between 320 and 4096");
  }
  if (w % 16 || h % 16) {
    return invalid("#/imageGenerationConfig: width and height must be divisible by 16");
  }
  if (Math.max(w, h) > 4 * Math.min(w, h)) {
    return invalid("#/imageGenerationConfig: aspect ratio must be between 1:4 and 4:1");
  }
  if (w * h > 4_194_304) {
    return invalid("#/imageGenerationConfig: total pixel count must be at most 4194304");
  }
  return undefined;
}

/** The answer of image model `modelId` to `body`, or the ValidationException's message. */
function imageAnswer(modelId: string, body: Json): Json | string {
  const nova = modelId.startsWith("amazon.nova-canvas");
  const refusal = extraneous(body, ["taskType", "textToImageParams", "imageGenerationConfig"], "#");
  if (refusal) return refusal;
  if (body.taskType !== "TEXT_IMAGE") {
    return invalid(
      body.taskType === undefined
        ? "#: required key [taskType] not found"
        : `#/taskType: ${body.taskType} is not a task this simulator draws`,
    );
  }
  const params = body.textToImageParams;
  if (!isObject(params)) return invalid("#: required key [textToImageParams] not found");
  const paramsRefusal = extraneous(
    params,
    nova ? ["text", "negativeText", "style"] : ["text", "negativeText"],
    "#/textToImageParams",
  );
  if (paramsRefusal) return paramsRefusal;
  const maxText = nova ? 1024 : 512;
  if (typeof params.text !== "string" || params.text.length < 1 || params.text.length > maxText) {
    return invalid(`#/textToImageParams/text: expected a string of 1 to ${maxText} characters`);
  }
  if (
    params.negativeText !== undefined &&
    (typeof params.negativeText !== "string" || params.negativeText.length < 3 ||
      params.negativeText.length > maxText)
  ) {
    return invalid(`#/textToImageParams/negativeText: expected 3 to ${maxText} characters`);
  }
  const config = body.imageGenerationConfig ?? {};
  if (!isObject(config)) return invalid("#/imageGenerationConfig: expected type: JSONObject");
  const configRefusal = extraneous(
    config,
    ["numberOfImages", "width", "height", "quality", "cfgScale", "seed"],
    "#/imageGenerationConfig",
  );
  if (configRefusal) return configRefusal;
  const count = config.numberOfImages ?? 1;
  if (!isInteger(count, 1, 5)) {
    return invalid(`#/imageGenerationConfig/numberOfImages: ${count} is not between 1 and 5`);
  }
  const quality = config.quality ?? "standard";
  if (!["standard", "premium"].includes(quality)) {
    return invalid(`#/imageGenerationConfig/quality: ${quality} is not a valid enum value`);
  }
  if (
    config.cfgScale !== undefined &&
    (typeof config.cfgScale !== "number" || config.cfgScale < 1.1 || config.cfgScale > 10)
  ) {
    return invalid("#/imageGenerationConfig/cfgScale: expected a number from 1.1 to 10");
  }
  if (config.seed !== undefined && !isInteger(config.seed, 0, 2_147_483_646)) {
    return invalid("#/imageGenerationConfig/seed: expected an integer from 0 to 2147483646");
  }
  const width = config.width ?? 1024;
  const height = config.height ?? 1024;
  const sizeProblem = sizeRefusal(nova, width, height);
  if (sizeProblem) return sizeProblem;
  return {
    images: Array.from(
      { length: count },
      (_, index) =>
        solidRgbPng(width, height, bedrockImageColor(modelId, params.text, quality, index))
          .toBase64(),
    ),
  };
}

/** Stable Diffusion 3.5 Large's answer to `body`, or the ValidationException's message. */
function stabilityAnswer(modelId: string, body: Json): Json | string {
  const refusal = extraneous(
    body,
    ["prompt", "negative_prompt", "aspect_ratio", "mode", "seed", "output_format"],
    "#",
  );
  if (refusal) return refusal;
  if (typeof body.prompt !== "string" || body.prompt.length > 10_000) {
    return invalid("#/prompt: expected a string of at most 10000 characters");
  }
  if (
    body.negative_prompt !== undefined &&
    (typeof body.negative_prompt !== "string" || body.negative_prompt.length > 10_000)
  ) {
    return invalid("#/negative_prompt: expected a string of at most 10000 characters");
  }
  const ratio = body.aspect_ratio ?? "1:1";
  if (!(ratio in STABILITY_SIZES)) {
    return invalid(`#/aspect_ratio: ${ratio} is not a valid enum value`);
  }
  if (body.mode !== undefined && body.mode !== "text-to-image") {
    return invalid(`#/mode: ${body.mode} is not a mode this simulator draws`);
  }
  if (body.seed !== undefined && !isInteger(body.seed, 0, 4_294_967_294)) {
    return invalid("#/seed: expected an integer from 0 to 4294967294");
  }
  if ((body.output_format ?? "png") !== "png") {
    return invalid(`#/output_format: ${body.output_format} is not a format this simulator writes`);
  }
  const seed = body.seed ?? 1234;
  if (body.prompt.includes("FILTERED")) {
    return { seeds: [seed], finish_reasons: ["Filter reason: prompt"] };
  }
  const [width, height] = STABILITY_SIZES[ratio];
  const color = bedrockImageColor(modelId, body.prompt, "standard", 0);
  return {
    seeds: [seed],
    finish_reasons: [null],
    images: [solidRgbPng(width, height, color).toBase64()],
  };
}

/**
 * InvokeModel's answer of image model `modelId` to `body`, the ValidationException's message
 * when it refuses the body, or undefined for a model that is not an image model.
 */
export function bedrockImageAnswer(modelId: string, body: Json): Json | string | undefined {
  if (!BEDROCK_IMAGE_MODELS.includes(modelId)) return undefined;
  if (!isObject(body)) return "Malformed input request, please reformat your input and try again.";
  return modelId === BEDROCK_TEST_STABILITY
    ? stabilityAnswer(modelId, body)
    : imageAnswer(modelId, body);
}
