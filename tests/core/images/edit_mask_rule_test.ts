/** The mask rule on decoded pixels: `hasFullyTransparentPixels` and `checkEditInputs`. */

import assert from "node:assert/strict";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { hasFullyTransparentPixels, hasTransparentPixels } from "../../../core/media/png.ts";
import { checkEditInputs } from "../../../core/images/edit_inputs.ts";
import { GatewayError } from "../../../core/errors.ts";
import {
  encodePng,
  maskPng,
  solidPng,
  squareOpaquePngWithAlpha,
  squareOpaqueRgbPng,
  squarePngWithTransparency,
} from "../../helpers/png_fixtures.ts";

const input = (bytes: Uint8Array, filename = "f.png") => ({
  bytes: bytes as Uint8Array<ArrayBuffer>,
  mimeType: "image/png",
  filename,
});

Deno.test("hasFullyTransparentPixels(): alpha 0 counts, partly transparent does not", () => {
  assertEquals(hasFullyTransparentPixels(maskPng(64, 64)), true);
  assertEquals(hasFullyTransparentPixels(squarePngWithTransparency()), true);
  assertEquals(hasFullyTransparentPixels(solidPng(8, 8, [1, 2, 3, 0])), true);
  assertEquals(hasFullyTransparentPixels(solidPng(8, 8, [1, 2, 3, 1])), false);
  assertEquals(hasTransparentPixels(solidPng(8, 8, [1, 2, 3, 1])), true);
  assertEquals(hasFullyTransparentPixels(squareOpaquePngWithAlpha()), false);
  assertEquals(hasFullyTransparentPixels(squareOpaqueRgbPng()), false);
  // 16-bit RGBA: alpha 0 vs. 1 of 65,535.
  const deep = (alpha: number) =>
    encodePng({ width: 4, height: 4, bitDepth: 16, pixel: () => [0, 0, 0, alpha] });
  assertEquals(hasFullyTransparentPixels(deep(0)), true);
  assertEquals(hasFullyTransparentPixels(deep(1)), false);
  // Grey + alpha, interlaced, one clear pixel found in a late Adam7 pass.
  const grey = encodePng({
    width: 9,
    height: 9,
    colorType: 4,
    interlace: true,
    pixel: (x, y) => [200, x === 1 && y === 1 ? 0 : 255],
  });
  assertEquals(hasFullyTransparentPixels(grey), true);
  // Palette: a tRNS entry of 0 is fully transparent, of 100 only partly.
  const palette = (alpha: number) =>
    encodePng({
      width: 4,
      height: 4,
      colorType: 3,
      palette: [[0, 0, 0], [9, 9, 9]],
      trns: [255, alpha],
      pixel: (x) => [x === 0 ? 1 : 0],
    });
  assertEquals(hasFullyTransparentPixels(palette(0)), true);
  assertEquals(hasFullyTransparentPixels(palette(100)), false);
  // RGB with a tRNS key colour: pixels of that colour are fully transparent.
  const keyed = encodePng({
    width: 4,
    height: 4,
    colorType: 2,
    trns: [10, 20, 30],
    pixel: (x) => (x === 2 ? [10, 20, 30] : [1, 1, 1]),
  });
  assertEquals(hasFullyTransparentPixels(keyed), true);
});

Deno.test("checkEditInputs(): masks that mark nothing are refused naming mask", () => {
  const image = [input(squareOpaqueRgbPng(16))];
  const refused = (mask: Uint8Array, fragment: string) =>
    assert.throws(() => checkEditInputs(image, input(mask, "mask.png")), (error) => {
      assertOk(error instanceof GatewayError);
      assertEquals(error.status, 400);
      assertEquals(error.param, "mask");
      assertEquals(error.code, "invalid_mask");
      assertOk(error.message.includes(fragment), error.message);
      return true;
    });
  refused(squareOpaqueRgbPng(16), "no alpha channel");
  refused(squareOpaquePngWithAlpha(16), "no fully transparent pixel");
  refused(solidPng(16, 16, [0, 0, 0, 128]), "no fully transparent pixel");
  checkEditInputs(image, input(maskPng(16, 16), "mask.png"));
});
