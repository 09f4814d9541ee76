/**
 * The edit mask rule ("mask: valid PNG, same dimensions as the image; fully transparent areas mark
 * where to edit"), judged on the mask's decoded pixels: a mask that marks nothing is a 400 naming
 * `mask`, before anything is held or sent upstream.
 */

import { assertNothingCharged } from "../../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { postJson, serverTest } from "../../helpers/gateway.ts";
import { setupImages } from "../../helpers/image_setup.ts";
import {
  encodePng,
  maskPng,
  solidPng,
  squareOpaquePngWithAlpha,
  squareOpaqueRgbPng,
  squarePngWithTransparency,
} from "../../helpers/png_fixtures.ts";

function editForm(image: Uint8Array, mask: Uint8Array): FormData {
  const form = new FormData();
  form.append("prompt", "paint the sky");
  form.append("image", new Blob([image as Uint8Array<ArrayBuffer>]), "image.png");
  form.append("mask", new Blob([mask as Uint8Array<ArrayBuffer>]), "mask.png");
  return form;
}

/** [name, mask, message fragment]: masks that mark nothing to edit. */
const REFUSED_MASKS: Array<[string, Uint8Array, string]> = [
  ["opaque mask without alpha channel (RGB)", squareOpaqueRgbPng(64), "no alpha channel"],
  [
    "mask with an alpha channel, every pixel opaque",
    squareOpaquePngWithAlpha(64),
    "no fully transparent pixel",
  ],
  [
    "mask with an alpha channel, every pixel almost opaque (alpha 254)",
    solidPng(64, 64, [0, 0, 0, 254]),
    "no fully transparent pixel",
  ],
  [
    "grey+alpha mask, half transparent at most (alpha 128)",
    encodePng({ width: 64, height: 64, colorType: 4, pixel: () => [255, 128] }),
    "no fully transparent pixel",
  ],
];

for (const async of [false, true]) {
  Deno.test(
    `image edits${
      async ? " (async task)" : ""
    }: a mask with no fully transparent pixel is a 400 naming mask; nothing held, nothing sent`,
    serverTest,
    async () => {
      await using s = await setupImages("openai-images");
      const headers: Record<string, string> = async ? { "x-gateway-async-task": "true" } : {};
      for (const image of [squarePngWithTransparency(64), squareOpaqueRgbPng(64)]) {
        for (const [name, mask, fragment] of REFUSED_MASKS) {
          const response = await postJson(
            s.gw,
            "/v1/images/edits",
            s.key,
            editForm(image, mask),
            headers,
          );
          const error = (await response.json()).error;
          assertEquals(response.status, 400, `${name}: ${error.message}`);
          assertEquals(error.param, "mask", name);
          assertEquals(error.code, "invalid_mask", name);
          assertOk(error.message.includes(fragment), `${name}: ${error.message}`);
          assertOk(error.message.includes("fully transparent (alpha 0)"), error.message);
        }
      }
      assertEquals(s.upstreamRequests(), 0);
      await assertNothingCharged(s, 10_000_000, { untouched: true });
    },
  );
}

Deno.test(
  "image edits: masks with fully transparent pixels are accepted (RGBA, palette with tRNS)",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images");
    const paletteMask = encodePng({
      width: 64,
      height: 64,
      colorType: 3,
      palette: [[0, 0, 0], [255, 255, 255]],
      trns: [0, 255],
      pixel: (x) => [x < 8 ? 0 : 1],
    });
    const oneClearPixel = encodePng({
      width: 64,
      height: 64,
      pixel: (x, y) => [255, 255, 255, x === 63 && y === 63 ? 0 : 255],
    });
    for (const mask of [maskPng(64, 64), paletteMask, oneClearPixel]) {
      const response = await postJson(
        s.gw,
        "/v1/images/edits",
        s.key,
        editForm(squareOpaqueRgbPng(64), mask),
      );
      assertEquals(response.status, 200, await response.clone().text());
      assertEquals((await response.json()).data.length, 1);
    }
    assertEquals(s.openai!.requests.length, 3);
  },
);
