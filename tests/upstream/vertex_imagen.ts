/**
 * The Vertex simulator's Imagen models (`publishers/google/models/imagen-…:predict`), as strict
 * as Google documents the API: a PredictRequest (`instances`, `parameters`, `labels`; other fields
 * refused) of exactly one instance `{prompt}` (a non-empty string; other fields refused: the
 * generate models do not edit), `parameters` of the documented fields only, `sampleCount` a whole
 * number 1–4, `aspectRatio` one of 1:1, 3:4, 4:3, 9:16, 16:9, `sampleImageSize` 1K or 2K on
 * Imagen 4 Standard and Ultra only, `outputOptions.mimeType` image/png or image/jpeg. Answered
 * `{predictions: [{bytesBase64Encoded, mimeType}]}`, one per sample: real PNGs whose shape is the
 * aspect ratio (8x8 for 1:1, 6x8 for 3:4, 16x9 for 16:9 …), a distinct colour each.
 */

import { solidPng } from "../helpers/png_fixtures.ts";
import { simulatedImageColor } from "./openai_images.ts";

/** The Imagen models the simulator serves. */
export const IMAGEN_MODELS = [
  "imagen-4.0-generate-001",
  "imagen-4.0-ultra-generate-001",
  "imagen-4.0-fast-generate-001",
  "imagen-3.0-generate-002",
  "imagen-3.0-fast-generate-001",
];

/** The pixel shape of each aspect ratio's simulated image. */
export const IMAGEN_SHAPES: Record<string, [number, number]> = {
  "1:1": [8, 8],
  "3:4": [6, 8],
  "4:3": [8, 6],
  "9:16": [9, 16],
  "16:9": [16, 9],
};

const REQUEST_FIELDS = ["instances", "parameters", "labels"];
const PARAMETER_FIELDS = [
  "sampleCount",
  "aspectRatio",
  "sampleImageSize",
  "outputOptions",
  "negativePrompt",
  "seed",
  "addWatermark",
  "enhancePrompt",
  "personGeneration",
  "safetySetting",
  "includeRaiReason",
  "language",
  "storageUri",
];
const OUTPUT_FIELDS = ["mimeType", "compressionQuality"];

/** Whether `model` is one of the simulator's Imagen models. */
export function isImagenModel(model: string): boolean {
  return IMAGEN_MODELS.includes(model);
}

function invalid(message: string): Response {
  return Response.json(
    { error: { code: 400, message, status: "INVALID_ARGUMENT" } },
    { status: 400 },
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function unknownField(value: Record<string, unknown>, known: string[], where: string) {
  const field = Object.keys(value).find((name) => !known.includes(name));
  return field === undefined ? undefined : invalid(
    `Invalid JSON payload received. Unknown name "${field}" at '${where}': ` +
      `Cannot find field.`,
  );
}

/** Answers one Imagen `:predict` call of `text` to `model`. */
export function imagenPredict(model: string, text: string): Response {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return invalid("Invalid JSON payload received.");
  }
  if (!isObject(body)) return invalid("Invalid JSON payload received.");
  const refused = unknownField(body, REQUEST_FIELDS, "");
  if (refused) return refused;
  const instances = body.instances;
  if (!Array.isArray(instances) || instances.length !== 1 || !isObject(instances[0])) {
    return invalid("Image generation takes exactly one instance.");
  }
  const instance = instances[0];
  const instanceRefused = unknownField(instance, ["prompt"], "instances[0]");
  if (instanceRefused) return instanceRefused;
  if (typeof instance.prompt !== "string" || instance.prompt.trim() === "") {
    return invalid("The prompt is empty.");
  }
  const parameters = body.parameters ?? {};
  if (!isObject(parameters)) return invalid("parameters must be an object.");
  const parametersRefused = unknownField(parameters, PARAMETER_FIELDS, "parameters");
  if (parametersRefused) return parametersRefused;
  const count = parameters.sampleCount ?? 4;
  if (!Number.isInteger(count) || (count as number) < 1 || (count as number) > 4) {
    return invalid(`sampleCount must be from 1 to 4, got ${JSON.stringify(count)}.`);
  }
  const ratio = parameters.aspectRatio ?? "1:1";
  if (typeof ratio !== "string" || !(ratio in IMAGEN_SHAPES)) {
    return invalid(`Unsupported aspect ratio: ${JSON.stringify(ratio)}.`);
  }
  const imageSize = parameters.sampleImageSize;
  if (imageSize !== undefined) {
    const sizes = /^imagen-4\.0-(ultra-)?generate/.test(model) ? ["1K", "2K"] : [];
    if (typeof imageSize !== "string" || !sizes.includes(imageSize)) {
      return invalid(`sampleImageSize ${JSON.stringify(imageSize)} is not supported by ${model}.`);
    }
  }
  const output = parameters.outputOptions ?? {};
  if (!isObject(output)) return invalid("outputOptions must be an object.");
  const outputRefused = unknownField(output, OUTPUT_FIELDS, "parameters.outputOptions");
  if (outputRefused) return outputRefused;
  const mimeType = output.mimeType ?? "image/png";
  if (mimeType !== "image/png" && mimeType !== "image/jpeg") {
    return invalid(`Unsupported output mime type: ${JSON.stringify(mimeType)}.`);
  }
  const [width, height] = IMAGEN_SHAPES[ratio];
  const predictions = Array.from({ length: count as number }, (_, index) => ({
    // The simulator always makes PNGs; it labels them as such.
    bytesBase64Encoded: solidPng(
      width,
      height,
      simulatedImageColor(instance.prompt as string, index),
    )
      .toBase64(),
    mimeType: "image/png",
  }));
  return Response.json({ predictions });
}
