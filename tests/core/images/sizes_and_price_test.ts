import { assertEquals } from "../../helpers/assert.ts";
import { sizeProblem } from "../../../core/images/sizes.ts";
import { geminiImageConfig } from "../../../core/providers/gemini_images.ts";
import { modelSizeTier } from "../../../core/jobs/image_size_tiers.ts";
import { imageCost, imageUnitPrice } from "../../../core/billing/image_price.ts";
import { parseRange } from "../../../core/media/media_store.ts";

Deno.test("sizeProblem: listed sizes pass; custom sizes name the rule they break", () => {
  for (const size of ["auto", "1024x1024", "3840x2160", "2160x3840", "1280x720"]) {
    assertEquals(sizeProblem(size), null, size);
  }
  const rule = (size: string) => sizeProblem(size) ?? "";
  assertEquals(rule("huge").includes("WIDTHxHEIGHT"), true);
  assertEquals(rule("3856x2160").includes("longest edge"), true);
  assertEquals(rule("1000x1008").includes("multiple of 16"), true);
  assertEquals(rule("3264x1056").includes("aspect ratio"), true);
  assertEquals(rule("768x768").includes("pixel count"), true);
  assertEquals(rule("0x1024").includes("positive"), true);
  // 3840x1280 is exactly 3:1 and 4,915,200 pixels: allowed.
  assertEquals(sizeProblem("3840x1280"), null);
});

Deno.test("geminiImageConfig: nearest aspect ratio and size class; model size class on auto", () => {
  assertEquals(geminiImageConfig("1024x1024"), { aspectRatio: "1:1", imageSize: "1K" });
  // 1536x1024 (1.57 MP) is a 1K size: Gemini's classes are pixel budgets (see core/jobs/image_size_tiers.ts).
  assertEquals(geminiImageConfig("1536x1024"), { aspectRatio: "3:2", imageSize: "1K" });
  assertEquals(geminiImageConfig("2048x1152"), { aspectRatio: "16:9", imageSize: "2K" });
  assertEquals(geminiImageConfig("2160x3840"), { aspectRatio: "9:16", imageSize: "4K" });
  assertEquals(geminiImageConfig("auto"), {});
  assertEquals(geminiImageConfig("auto", modelSizeTier("gen-image-2-2k")), { imageSize: "2K" });
  assertEquals(modelSizeTier("gen-image-2"), undefined);
});

Deno.test("image prices: the most specific tier wins, then per_image", () => {
  const price = {
    per_image: 10,
    tiers: { "1024x1024/high": 30, "2048x2048/*": 50, "*/low": 5 },
  };
  assertEquals(imageUnitPrice(price, { size: "1024x1024", quality: "high" }), 30);
  assertEquals(imageUnitPrice(price, { size: "2048x2048", quality: "high" }), 50);
  assertEquals(imageUnitPrice(price, { size: "1024x1024", quality: "low" }), 5);
  assertEquals(imageUnitPrice(price, { size: "auto", quality: "auto" }), 10);
  assertEquals(imageCost(price, { size: "2048x2048", quality: "low", count: 3 }), 150);
});

Deno.test("parseRange: single ranges, suffixes, open ends and unsatisfiable ones", () => {
  assertEquals(parseRange(null, 100), null);
  assertEquals(parseRange("bytes=0-9", 100), { start: 0, end: 9 });
  assertEquals(parseRange("bytes=90-", 100), { start: 90, end: 99 });
  assertEquals(parseRange("bytes=-10", 100), { start: 90, end: 99 });
  assertEquals(parseRange("bytes=50-500", 100), { start: 50, end: 99 });
  assertEquals(parseRange("bytes=100-", 100), "unsatisfiable");
  assertEquals(parseRange("bytes=1-2,4-5", 100), null);
});
