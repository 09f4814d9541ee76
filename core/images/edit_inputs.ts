/** The edit rules on uploaded files, judged from their bytes. Pure. */

import { invalidRequest } from "../errors.ts";
import {
  hasFullyTransparentPixels,
  hasTransparentPixels,
  PngError,
  readPng,
} from "../media/png.ts";
import type { InputImage } from "../jobs/image_job.ts";

export const MAX_EDIT_FILE_BYTES = 4 * 1024 * 1024;
export const MAX_EDIT_IMAGES = 16;

function pngProblem(error: PngError, what: string): string {
  switch (error.reason) {
    case "not_png":
      return `${what} is not a PNG file (judged from its bytes); convert it to PNG`;
    case "truncated":
      return `${what} is a truncated PNG file: ${error.message}`;
    case "too_large":
      return `${what} has too many pixels to check: ${error.message}`;
    default:
      return `${what} is not a valid PNG file: ${error.message}`;
  }
}

/** Runs a PNG check, turning a `PngError` into a 400 about `param`. */
function checked<T>(run: () => T, what: string, param: string): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof PngError) {
      throw invalidRequest(pngProblem(error, what), param, "invalid_image");
    }
    throw error;
  }
}

/** Reads a PNG under 4 MB, or a 400 about `param` naming `what` and the problem. */
export function readChecked(bytes: Uint8Array, what: string, param: string) {
  if (bytes.length >= MAX_EDIT_FILE_BYTES) {
    throw invalidRequest(
      `${what} is ${bytes.length.toLocaleString("en")} bytes; it must be smaller than 4 MB`,
      param,
      "image_too_large",
    );
  }
  return checked(() => readPng(bytes), what, param);
}

/**
 * The mask rule: fully transparent areas (alpha 0) mark where to edit, so a mask must have an
 * alpha channel (or tRNS) and at least one fully transparent pixel, judged on decoded pixels.
 */
function checkMaskTransparency(mask: InputImage, hasAlphaChannel: boolean): void {
  if (!hasAlphaChannel) {
    throw invalidRequest(
      "mask has no alpha channel, so it marks nothing to edit; send an RGBA PNG whose areas to edit are fully transparent (alpha 0)",
      "mask",
      "invalid_mask",
    );
  }
  if (!checked(() => hasFullyTransparentPixels(mask.bytes), "mask", "mask")) {
    throw invalidRequest(
      "mask has an alpha channel but no fully transparent pixel, so it marks nothing to edit; make the areas to edit fully transparent (alpha 0)",
      "mask",
      "invalid_mask",
    );
  }
}

/**
 * Checks the edit's images and mask: each image a valid square PNG under 4 MB; a mask a valid
 * PNG under 4 MB with the first image's dimensions and at least one fully transparent pixel;
 * without a mask, the first image (the one a mask would apply to) must contain transparent
 * pixels.
 */
export function checkEditInputs(images: InputImage[], mask: InputImage | undefined): void {
  if (images.length === 0) {
    throw invalidRequest("image is required: send the PNG to edit as 'image'", "image");
  }
  if (images.length > MAX_EDIT_IMAGES) {
    throw invalidRequest(`At most ${MAX_EDIT_IMAGES} images can be edited at once`, "image");
  }
  const infos = images.map((image, index) => {
    const what = images.length > 1 ? `image ${index + 1} ('${image.filename}')` : "image";
    const info = readChecked(image.bytes, what, "image");
    if (info.width !== info.height) {
      throw invalidRequest(
        `${what} must be square; it is ${info.width}x${info.height}`,
        "image",
        "invalid_image",
      );
    }
    return info;
  });
  if (mask) {
    const info = readChecked(mask.bytes, "mask", "mask");
    if (info.width !== infos[0].width || info.height !== infos[0].height) {
      throw invalidRequest(
        `mask must have the image's dimensions: image ${infos[0].width}x${
          infos[0].height
        }, mask ${info.width}x${info.height}`,
        "mask",
        "invalid_mask",
      );
    }
    checkMaskTransparency(mask, info.hasAlphaChannel);
    return;
  }
  const first = images[0];
  const transparent = infos[0].hasAlphaChannel &&
    checked(() => hasTransparentPixels(first.bytes), "image", "image");
  if (!transparent) {
    throw invalidRequest(
      infos[0].hasAlphaChannel
        ? "image has an alpha channel but every pixel is opaque; without a mask, make the area to edit transparent, or send a mask"
        : "image has no transparency (no alpha channel); without a mask, make the area to edit transparent, or send a mask",
      "image",
      "image_not_transparent",
    );
  }
}
