/**
 * Size tiers (1K, 2K, 4K) by pixel count, and the rule that a model whose name carries a
 * tier (`gen-image-2-1k`) makes no image of a larger tier: a variant name must not buy a larger
 * image at a smaller price. The Gemini mapping (`imageSize`) uses the same tiers, so what the
 * upstream draws is what the variant is priced for.
 */

import { parseSize } from "./image_job.ts";

export type SizeTier = "1K" | "2K" | "4K";

/**
 * Each tier's largest pixel count, smallest first, with the listed size that fills it. Pixels,
 * not the longest edge: Gemini's classes are pixel budgets (1K is about a megapixel at every
 * ratio, 1376x768 at 16:9), and under the spec's 655,360-pixel floor no 16:9 size has an edge of
 * at most 1,024, so an edge rule would leave a 1K model without wide images. The spec's listed
 * sizes fall 3/2/2: 1024x1024, 1536x1024, 1024x1536 | 2048x2048, 2048x1152 | 3840x2160, 2160x3840.
 */
const TIERS: ReadonlyArray<{ tier: SizeTier; maxPixels: number; largest: string }> = [
  { tier: "1K", maxPixels: 1536 * 1024, largest: "1536x1024" },
  { tier: "2K", maxPixels: 2048 * 2048, largest: "2048x2048" },
  { tier: "4K", maxPixels: 3840 * 2160, largest: "3840x2160" },
];

/** The tier of a `WxH` size by its pixel count; undefined for `auto` (the model decides). */
export function sizeTier(size: string): SizeTier | undefined {
  const dimensions = parseSize(size);
  if (!dimensions) return undefined;
  const pixels = dimensions.width * dimensions.height;
  return (TIERS.find((entry) => pixels <= entry.maxPixels) ?? TIERS[TIERS.length - 1]).tier;
}

/** A Gemini `imageSize` (`1K`, `2K`, `4K`, any case) as a tier; undefined for anything else. */
export function tierOfImageSize(imageSize: string | undefined): SizeTier | undefined {
  const tier = imageSize?.toUpperCase();
  return TIERS.find((entry) => entry.tier === tier)?.tier;
}

/** The tier a model name carries (`gen-image-2-4k` → `4K`); undefined when it carries none. */
export function modelSizeTier(model: string): SizeTier | undefined {
  const match = /-(1k|2k|4k)$/i.exec(model);
  return match ? (match[1].toUpperCase() as SizeTier) : undefined;
}

const rank = (tier: SizeTier) => TIERS.findIndex((entry) => entry.tier === tier);

/**
 * Why `model` cannot make an image of tier `wanted` (asked for as `asked`, e.g. `size
 * '3840x2160'`), naming its largest size and the model that makes this one; null when it can (no
 * tier in the name, no tier asked, or its tier or below).
 */
export function variantTierProblem(
  model: string,
  wanted: SizeTier | undefined,
  asked: string,
): string | null {
  const modelTier = modelSizeTier(model);
  if (!modelTier || !wanted || rank(wanted) <= rank(modelTier)) return null;
  const limit = TIERS[rank(modelTier)];
  const larger = model.replace(/-(1k|2k|4k)$/i, `-${wanted.toLowerCase()}`);
  return `${asked} is a ${wanted} size; ${model} makes ${modelTier} images, at most ${limit.largest} (${
    limit.maxPixels.toLocaleString("en")
  } pixels); use ${larger} for ${wanted} images`;
}

/** `variantTierProblem` for an images-API `size`. */
export function variantSizeProblem(model: string, size: string): string | null {
  return variantTierProblem(model, sizeTier(size), `size '${size}'`);
}
