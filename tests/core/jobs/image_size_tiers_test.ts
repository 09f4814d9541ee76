import { assertEquals } from "../../helpers/assert.ts";
import {
  sizeTier,
  tierOfImageSize,
  variantSizeProblem,
} from "../../../core/jobs/image_size_tiers.ts";

Deno.test("sizeTier: by pixel count; the spec's listed sizes fall 3/2/2", () => {
  for (const size of ["1024x1024", "1536x1024", "1024x1536", "1344x768", "1024x640"]) {
    assertEquals(sizeTier(size), "1K", size);
  }
  for (const size of ["2048x2048", "2048x1152", "1152x2048", "1536x1536", "1552x1024"]) {
    assertEquals(sizeTier(size), "2K", size);
  }
  for (const size of ["3840x2160", "2160x3840", "2880x2880", "2064x2048"]) {
    assertEquals(sizeTier(size), "4K", size);
  }
  assertEquals(sizeTier("auto"), undefined);
  assertEquals(tierOfImageSize("4k"), "4K");
  assertEquals(tierOfImageSize("8K"), undefined);
});

Deno.test("variantSizeProblem: a size above the variant's tier names its largest size", () => {
  assertEquals(variantSizeProblem("gen-image-2-1k", "1536x1024"), null);
  assertEquals(variantSizeProblem("gen-image-2-1k", "auto"), null);
  assertEquals(variantSizeProblem("gen-image-2-4k", "1024x1024"), null);
  assertEquals(variantSizeProblem("gen-image-2", "3840x2160"), null);
  assertEquals(
    variantSizeProblem("gen-image-2-2k", "3840x2160"),
    "size '3840x2160' is a 4K size; gen-image-2-2k makes 2K images, at most 2048x2048 " +
      "(4,194,304 pixels); use gen-image-2-4k for 4K images",
  );
  assertEquals(variantSizeProblem("gen-image-2-1k", "1552x1024")?.includes("2K size"), true);
});
