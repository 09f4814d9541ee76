import assert from "node:assert/strict";
import { deflateSync } from "node:zlib";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import {
  crc32,
  hasTransparentPixels,
  PngError,
  type PngErrorReason,
  type PngInfo,
  readPng,
} from "../../../core/media/png.ts";
import {
  assemblePng,
  encodePng,
  maskPng,
  nonSquarePng,
  notAPng,
  pngChunk,
  type PngFilterType,
  pngOver4MB,
  solidPng,
  squareOpaquePngWithAlpha,
  squareOpaqueRgbPng,
  squarePngWithTransparency,
  truncatedPng,
} from "../../helpers/png_fixtures.ts";

function assertPngError(fn: () => unknown, reason: PngErrorReason): void {
  assert.throws(fn, (error) => {
    assertOk(error instanceof PngError, `expected a PngError, got ${error}`);
    assertEquals(error.reason, reason, `expected reason ${reason}, got: ${error.message}`);
    assertOk(error.message.length > 0);
    return true;
  });
}

interface Chunk {
  type: string;
  data: Uint8Array;
}

function chunksOf(png: Uint8Array): Chunk[] {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const chunks: Chunk[] = [];
  for (let offset = 8; offset < png.length;) {
    const length = view.getUint32(offset);
    const type = String.fromCharCode(...png.subarray(offset + 4, offset + 8));
    chunks.push({ type, data: png.subarray(offset + 8, offset + 8 + length) });
    offset += 12 + length;
  }
  return chunks;
}

/** Rewrites a PNG's chunks, with correct CRCs. */
function rebuildPng(png: Uint8Array, edit: (chunks: Chunk[]) => Chunk[]): Uint8Array {
  return assemblePng(edit(chunksOf(png)).map(({ type, data }) => pngChunk(type, data)));
}

interface HeaderPatch {
  width?: number;
  height?: number;
  bitDepth?: number;
  colorType?: number;
  compression?: number;
  filter?: number;
  interlace?: number;
}

function withHeader(png: Uint8Array, patch: HeaderPatch): Uint8Array {
  return rebuildPng(png, (chunks) =>
    chunks.map((chunk) => {
      if (chunk.type !== "IHDR") return chunk;
      const data = chunk.data.slice();
      const view = new DataView(data.buffer);
      if (patch.width !== undefined) view.setUint32(0, patch.width);
      if (patch.height !== undefined) view.setUint32(4, patch.height);
      const fields = [patch.bitDepth, patch.colorType, patch.compression, patch.filter];
      [...fields, patch.interlace].forEach((value, i) => {
        if (value !== undefined) data[8 + i] = value;
      });
      return { type: "IHDR", data };
    }));
}

/** A PNG whose IDAT holds exactly the given (already filtered) scanlines. */
function pngWithScanlines(header: Partial<PngInfo>, scanlines: number[][]): Uint8Array {
  const base = encodePng({ width: 1, height: 1, pixel: () => [0, 0, 0, 0] });
  const patched = withHeader(base, {
    width: header.width,
    height: header.height,
    bitDepth: header.bitDepth,
    colorType: header.colorType,
  });
  const idat = deflateSync(new Uint8Array(scanlines.flat()));
  return rebuildPng(
    patched,
    (chunks) => chunks.map((chunk) => chunk.type === "IDAT" ? { type: "IDAT", data: idat } : chunk),
  );
}

/** Deterministic, irregular bytes so every filter predictor is exercised. */
function noise(x: number, y: number, channel: number): number {
  const hash = Math.imul(x + 1, 0x9e3779b1) ^ Math.imul(y + 7, 0x85ebca77) ^
    Math.imul(channel + 13, 0xc2b2ae3d);
  return (hash ^ (hash >>> 15)) & 0xff;
}

const RGBA_HEADER = { bitDepth: 8, colorType: 6, interlaced: false, hasAlphaChannel: true };

Deno.test("crc32() matches the standard check value and a known PNG chunk CRC", () => {
  assertEquals(crc32(new TextEncoder().encode("123456789")), 0xcbf43926);
  assertEquals(crc32(new TextEncoder().encode("IEND")), 0xae426082);
  assertEquals(crc32(new Uint8Array()), 0);
});

Deno.test("readPng() reads the header of every fixture", () => {
  assertEquals(readPng(squarePngWithTransparency()), { width: 64, height: 64, ...RGBA_HEADER });
  assertEquals(readPng(squareOpaquePngWithAlpha(32)), { width: 32, height: 32, ...RGBA_HEADER });
  assertEquals(readPng(squareOpaqueRgbPng()), {
    width: 64,
    height: 64,
    bitDepth: 8,
    colorType: 2,
    interlaced: false,
    hasAlphaChannel: false,
  });
  assertEquals(readPng(nonSquarePng()), { width: 64, height: 32, ...RGBA_HEADER });
  assertEquals(readPng(maskPng(40, 30)), { width: 40, height: 30, ...RGBA_HEADER });
  assertEquals(readPng(solidPng(3, 2, [1, 2, 3, 255])), { width: 3, height: 2, ...RGBA_HEADER });
});

Deno.test("pngOver4MB() is a valid square PNG over 4 MiB with transparency", () => {
  const png = pngOver4MB();
  assertOk(png.length > 4 * 1024 * 1024, `only ${png.length} bytes`);
  assertEquals(readPng(png), { width: 1100, height: 1100, ...RGBA_HEADER });
  assertEquals(hasTransparentPixels(png), true);
});

Deno.test("hasTransparentPixels() judges every fixture", () => {
  assertEquals(hasTransparentPixels(squarePngWithTransparency()), true);
  assertEquals(hasTransparentPixels(squareOpaquePngWithAlpha()), false);
  assertEquals(hasTransparentPixels(squareOpaqueRgbPng()), false);
  assertEquals(hasTransparentPixels(nonSquarePng()), true);
  assertEquals(hasTransparentPixels(maskPng(64, 64)), true);
  assertEquals(hasTransparentPixels(maskPng(1, 1)), true);
  assertEquals(hasTransparentPixels(solidPng(8, 8, [10, 20, 30, 255])), false);
  assertEquals(hasTransparentPixels(solidPng(8, 8, [10, 20, 30, 0])), true);
  assertEquals(hasTransparentPixels(solidPng(8, 8, [10, 20, 30, 254])), true);
});

Deno.test("bytes that are not a PNG are rejected as not_png", () => {
  assertPngError(() => readPng(notAPng()), "not_png");
  assertPngError(() => hasTransparentPixels(notAPng()), "not_png");
  assertPngError(() => readPng(new Uint8Array()), "not_png");
  assertPngError(() => readPng(new TextEncoder().encode("<html>not an image</html>")), "not_png");
});

Deno.test("a cut file or a missing IEND is rejected as truncated", () => {
  const whole = squarePngWithTransparency(16);
  assertPngError(() => readPng(truncatedPng()), "truncated");
  assertPngError(() => hasTransparentPixels(truncatedPng()), "truncated");
  assertPngError(() => readPng(whole.subarray(0, whole.length - 12)), "truncated");
  assertPngError(() => readPng(whole.subarray(0, whole.length - 1)), "truncated");
  assertPngError(() => readPng(whole.subarray(0, 8 + 25 + 3)), "truncated");
  assertPngError(() => readPng(whole.subarray(0, 8)), "truncated");
  assertPngError(() => readPng(whole.subarray(0, 5)), "truncated");
});

Deno.test("a wrong CRC is rejected as corrupt", () => {
  const png = squarePngWithTransparency(16);
  const crcFlipped = png.slice();
  crcFlipped[png.length - 12 - 1] ^= 0x01; // the last byte of the IDAT chunk's CRC
  assertPngError(() => readPng(crcFlipped), "corrupt");
  assertPngError(() => hasTransparentPixels(crcFlipped), "corrupt");
  const dataFlipped = png.slice();
  dataFlipped[8 + 8 + 4] ^= 0x80; // a byte of IHDR's width
  assertPngError(() => readPng(dataFlipped), "corrupt");
});

Deno.test("invalid IHDR fields are rejected as corrupt", () => {
  const png = squareOpaquePngWithAlpha(8);
  const patches: HeaderPatch[] = [
    { width: 0 },
    { height: 0 },
    { width: 0x80000000 },
    { colorType: 1 },
    { colorType: 5 },
    { bitDepth: 3 },
    { bitDepth: 4 }, // RGBA needs 8 or 16
    { colorType: 2, bitDepth: 1 },
    { colorType: 3, bitDepth: 16 },
    { colorType: 4, bitDepth: 2 },
    { colorType: 0, bitDepth: 32 },
    { compression: 1 },
    { filter: 1 },
    { interlace: 2 },
  ];
  for (const patch of patches) {
    assertPngError(() => readPng(withHeader(png, patch)), "corrupt");
  }
  assertEquals(readPng(withHeader(png, { colorType: 0, bitDepth: 16 })).colorType, 0);
});

Deno.test("a PNG with misplaced or missing required chunks is rejected as corrupt", () => {
  const png = squareOpaquePngWithAlpha(8);
  const text = { type: "tEXt", data: new TextEncoder().encode("Comment\0hi") };
  const notIhdrFirst = rebuildPng(png, (chunks) => [text, ...chunks]);
  assertPngError(() => readPng(notIhdrFirst), "corrupt");
  const ihdrTwice = rebuildPng(png, ([ihdr, ...rest]) => [ihdr, ihdr, ...rest]);
  assertPngError(() => readPng(ihdrTwice), "corrupt");
  const shortIhdr = rebuildPng(
    png,
    ([ihdr, ...rest]) => [{ type: "IHDR", data: ihdr.data.subarray(0, 12) }, ...rest],
  );
  assertPngError(() => readPng(shortIhdr), "corrupt");
  const noIdat = rebuildPng(png, (chunks) => chunks.filter(({ type }) => type !== "IDAT"));
  assertPngError(() => readPng(noIdat), "corrupt");
  const paletteWithoutPlte = encodePng({
    width: 2,
    height: 2,
    colorType: 3,
    pixel: () => [0],
    palette: [[0, 0, 0]],
  });
  const noPlte = rebuildPng(
    paletteWithoutPlte,
    (chunks) => chunks.filter((c) => c.type !== "PLTE"),
  );
  assertPngError(() => readPng(noPlte), "corrupt");
});

Deno.test("a tRNS chunk of the wrong size is rejected as corrupt", () => {
  const rgb = (trns: number[]) =>
    encodePng({ width: 2, height: 2, colorType: 2, pixel: () => [1, 2, 3], trns });
  assertPngError(() => readPng(rgb([1, 2])), "corrupt");
  const gray = encodePng({ width: 2, height: 2, colorType: 0, pixel: () => [1], trns: [1, 2] });
  assertPngError(() => readPng(gray), "corrupt");
  const palette = encodePng({
    width: 2,
    height: 2,
    colorType: 3,
    pixel: () => [0],
    palette: [[0, 0, 0], [9, 9, 9]],
    trns: [255, 255, 0],
  });
  assertPngError(() => readPng(palette), "corrupt");
});

Deno.test("more pixels than maxPixels is rejected as too_large, before decoding", () => {
  const png = squarePngWithTransparency(64);
  assertPngError(() => hasTransparentPixels(png, 64 * 64 - 1), "too_large");
  assertEquals(hasTransparentPixels(png, 64 * 64), true);
  assertPngError(() => hasTransparentPixels(squareOpaqueRgbPng(64), 100), "too_large");
  // Claims 100000x100000; the IDAT is never inflated, so the cap is what fails.
  assertPngError(
    () => hasTransparentPixels(withHeader(png, { width: 100_000, height: 100_000 })),
    "too_large",
  );
});

Deno.test("image data that does not inflate to the exact expected size is corrupt", () => {
  const png = squarePngWithTransparency(16);
  assertPngError(() => hasTransparentPixels(withHeader(png, { height: 17 })), "corrupt");
  assertPngError(() => hasTransparentPixels(withHeader(png, { height: 15 })), "corrupt");
  assertPngError(() => hasTransparentPixels(withHeader(png, { interlace: 1 })), "corrupt");
  const junk = rebuildPng(
    png,
    (chunks) =>
      chunks.map((chunk) =>
        chunk.type === "IDAT" ? { type: "IDAT", data: new Uint8Array([1, 2, 3, 4, 5]) } : chunk
      ),
  );
  assertEquals(readPng(junk).width, 16);
  assertPngError(() => hasTransparentPixels(junk), "corrupt");
  const cutStream = rebuildPng(
    png,
    (chunks) =>
      chunks.map((chunk) =>
        chunk.type === "IDAT" ? { type: "IDAT", data: chunk.data.subarray(0, 20) } : chunk
      ),
  );
  assertPngError(() => hasTransparentPixels(cutStream), "corrupt");
});

Deno.test("an unknown row filter type is corrupt, even after a transparent pixel", () => {
  const header = { width: 1, height: 2, bitDepth: 8, colorType: 6 };
  assertEquals(
    hasTransparentPixels(pngWithScanlines(header, [[0, 1, 2, 3, 0], [0, 1, 2, 3, 4]])),
    true,
  );
  assertPngError(
    () => hasTransparentPixels(pngWithScanlines(header, [[5, 1, 2, 3, 255], [0, 1, 2, 3, 255]])),
    "corrupt",
  );
  assertPngError(
    () => hasTransparentPixels(pngWithScanlines(header, [[0, 1, 2, 3, 0], [5, 1, 2, 3, 255]])),
    "corrupt",
  );
});

Deno.test("image data split over several IDAT chunks is joined before decoding", () => {
  const split = (png: Uint8Array) => chunksOf(png).filter(({ type }) => type === "IDAT").length;
  const transparent = encodePng({
    width: 20,
    height: 20,
    pixel: (
      x,
      y,
    ) => [noise(x, y, 0), noise(x, y, 1), noise(x, y, 2), x === 19 && y === 19 ? 0 : 255],
    idatChunkSize: 7,
  });
  assertOk(split(transparent) > 10);
  assertEquals(hasTransparentPixels(transparent), true);
  const opaque = encodePng({
    width: 20,
    height: 20,
    pixel: () => [5, 6, 7, 255],
    idatChunkSize: 3,
  });
  assertEquals(hasTransparentPixels(opaque), false);
});

Deno.test("gray+alpha at 8 and 16 bits: any alpha below the maximum is transparent", () => {
  const grayAlpha = (bitDepth: 8 | 16, alphaAt: (x: number, y: number) => number) =>
    encodePng({
      width: 7,
      height: 5,
      colorType: 4,
      bitDepth,
      pixel: (x, y) => [noise(x, y, 0) * (bitDepth === 16 ? 257 : 1), alphaAt(x, y)],
    });
  assertEquals(readPng(grayAlpha(8, () => 255)).hasAlphaChannel, true);
  assertEquals(hasTransparentPixels(grayAlpha(8, () => 255)), false);
  assertEquals(hasTransparentPixels(grayAlpha(8, (x, y) => x === 6 && y === 4 ? 254 : 255)), true);
  assertEquals(hasTransparentPixels(grayAlpha(16, () => 65535)), false);
  // Only the low byte differs from opaque: a decoder reading just the high byte would miss it.
  assertEquals(
    hasTransparentPixels(grayAlpha(16, (x, y) => x === 3 && y === 2 ? 65534 : 65535)),
    true,
  );
  assertEquals(hasTransparentPixels(grayAlpha(16, (x) => x === 0 ? 0x00ff : 65535)), true);
});

Deno.test("RGBA at 16 bits: opaque is 65535, anything less is transparent", () => {
  const rgba16 = (alpha: number) =>
    encodePng({
      width: 4,
      height: 4,
      bitDepth: 16,
      pixel: (x, y) => [noise(x, y, 0) * 257, 1000, 65535, x === 2 && y === 3 ? alpha : 65535],
    });
  assertEquals(hasTransparentPixels(rgba16(65535)), false);
  assertEquals(hasTransparentPixels(rgba16(0xff00)), true);
  assertEquals(hasTransparentPixels(rgba16(0xfffe)), true);
});

Deno.test("palette: only a used index with tRNS alpha below 255 is transparent", () => {
  const palette = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [9, 9, 9]];
  const trns = [255, 0, 128]; // index 3 is past the end of tRNS, so opaque
  const usingIndices = (indices: number[]) =>
    encodePng({
      width: 6,
      height: 3,
      colorType: 3,
      pixel: (x, y) => [indices[(x + y) % indices.length]],
      palette,
      trns,
    });
  assertEquals(readPng(usingIndices([0, 3])).hasAlphaChannel, true);
  assertEquals(hasTransparentPixels(usingIndices([0, 3])), false);
  assertEquals(hasTransparentPixels(usingIndices([0, 3, 1])), true);
  assertEquals(hasTransparentPixels(usingIndices([2, 0])), true);
  const withoutTrns = encodePng({ width: 2, height: 2, colorType: 3, pixel: () => [1], palette });
  assertEquals(readPng(withoutTrns).hasAlphaChannel, false);
  assertEquals(hasTransparentPixels(withoutTrns), false);
});

Deno.test("palette at 1, 2 and 4 bits with rows that do not fill their last byte", () => {
  for (const bitDepth of [1, 2, 4] as const) {
    const lastIndex = (1 << bitDepth) - 1;
    const palette = Array.from({ length: lastIndex + 1 }, (_, i) => [i, i, i]);
    const trns = palette.map((_, i) => (i === lastIndex ? 0 : 255));
    const image = (transparentAt: [number, number] | undefined) =>
      encodePng({
        width: 13,
        height: 5,
        colorType: 3,
        bitDepth,
        palette,
        trns,
        pixel: (x, y) =>
          transparentAt?.[0] === x && transparentAt[1] === y ? [lastIndex] : [(x + y) % lastIndex],
      });
    assertEquals(hasTransparentPixels(image(undefined)), false, `${bitDepth}-bit opaque`);
    assertEquals(hasTransparentPixels(image([12, 4])), true, `${bitDepth}-bit last pixel`);
    assertEquals(hasTransparentPixels(image([0, 0])), true, `${bitDepth}-bit first pixel`);
  }
});

Deno.test("RGB with tRNS: transparent only where a pixel equals the tRNS colour exactly", () => {
  const rgb = (bitDepth: 8 | 16, special: number[], trns: number[]) =>
    encodePng({
      width: 9,
      height: 4,
      colorType: 2,
      bitDepth,
      pixel: (x, y) =>
        x === 4 && y === 2
          ? special
          : [noise(x, y, 0), noise(x, y, 1), 200 + (x % 3)].map((s) =>
            bitDepth === 16 ? s * 257 : s
          ),
      trns,
    });
  assertEquals(readPng(rgb(8, [10, 20, 30], [10, 20, 30])).hasAlphaChannel, true);
  assertEquals(hasTransparentPixels(rgb(8, [10, 20, 30], [10, 20, 30])), true);
  assertEquals(hasTransparentPixels(rgb(8, [10, 20, 31], [10, 20, 30])), false);
  assertEquals(hasTransparentPixels(rgb(8, [11, 20, 30], [10, 20, 30])), false);
  assertEquals(hasTransparentPixels(rgb(16, [1000, 2000, 3000], [1000, 2000, 3000])), true);
  assertEquals(hasTransparentPixels(rgb(16, [1000, 2000, 3001], [1000, 2000, 3000])), false);
  // Compared at the file's bit depth: 8-bit 10 is not the 16-bit colour 10 * 257.
  assertEquals(hasTransparentPixels(rgb(16, [10, 20, 30], [10 * 257, 20 * 257, 30 * 257])), false);
});

Deno.test("gray with tRNS at 1, 2, 4, 8 and 16 bits", () => {
  for (const bitDepth of [1, 2, 4, 8, 16] as const) {
    const key = (1 << bitDepth) - 1;
    const image = (withKey: boolean) =>
      encodePng({
        width: 11,
        height: 3,
        colorType: 0,
        bitDepth,
        trns: [key],
        pixel: (x, y) => [withKey && x === 10 && y === 2 ? key : (x + y) % key],
      });
    assertEquals(hasTransparentPixels(image(false)), false, `${bitDepth}-bit without the key`);
    assertEquals(hasTransparentPixels(image(true)), true, `${bitDepth}-bit with the key`);
  }
  // A tRNS gray value above the bit depth's range never matches.
  const outOfRange = encodePng({
    width: 4,
    height: 4,
    colorType: 0,
    bitDepth: 2,
    trns: [0x0102],
    pixel: (x) => [x % 4],
  });
  assertEquals(hasTransparentPixels(outOfRange), false);
});

Deno.test("types 0, 2 and 3 without tRNS are opaque without decoding the pixels", () => {
  const junkIdat = (png: Uint8Array) =>
    rebuildPng(
      png,
      (chunks) =>
        chunks.map((chunk) =>
          chunk.type === "IDAT" ? { type: "IDAT", data: new Uint8Array([9, 9, 9]) } : chunk
        ),
    );
  const rgb = squareOpaqueRgbPng(8);
  const gray = encodePng({ width: 3, height: 3, colorType: 0, pixel: () => [0] });
  const palette = encodePng({
    width: 3,
    height: 3,
    colorType: 3,
    pixel: () => [0],
    palette: [[1, 2, 3]],
  });
  for (const png of [rgb, gray, palette]) {
    assertEquals(readPng(png).hasAlphaChannel, false);
    assertEquals(hasTransparentPixels(png), false);
    assertEquals(hasTransparentPixels(junkIdat(png)), false);
  }
});

Deno.test("Adam7: a transparent pixel that only pass 7 holds is found", () => {
  const image = (transparent: boolean) =>
    encodePng({
      width: 16,
      height: 16,
      interlace: true,
      // (5, 11): an odd row, so it belongs to pass 7 alone.
      pixel: (
        x,
        y,
      ) => [
        noise(x, y, 0),
        noise(x, y, 1),
        noise(x, y, 2),
        transparent && x === 5 && y === 11 ? 0 : 255,
      ],
    });
  assertEquals(readPng(image(true)), { width: 16, height: 16, ...RGBA_HEADER, interlaced: true });
  assertEquals(hasTransparentPixels(image(true)), true);
  assertEquals(hasTransparentPixels(image(false)), false);
});

Deno.test("Adam7: images too small to fill every pass skip the empty passes", () => {
  const sizes = [[1, 1], [2, 1], [1, 2], [5, 3], [3, 5], [9, 1], [1, 9], [10, 7]];
  for (const [width, height] of sizes) {
    assertEquals(
      hasTransparentPixels(solidInterlaced(width, height, 255)),
      false,
      `${width}x${height}`,
    );
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const png = encodePng({
          width,
          height,
          interlace: true,
          pixel: (px, py) => [px, py, 7, px === x && py === y ? 0 : 255],
        });
        assertEquals(hasTransparentPixels(png), true, `${width}x${height} at (${x}, ${y})`);
      }
    }
  }
});

function solidInterlaced(width: number, height: number, alpha: number): Uint8Array {
  return encodePng({ width, height, interlace: true, pixel: () => [1, 2, 3, alpha] });
}

Deno.test("Adam7 with sub-byte palette rows and 16-bit gray+alpha", () => {
  const palette = encodePng({
    width: 11,
    height: 11,
    colorType: 3,
    bitDepth: 2,
    interlace: true,
    palette: [[0, 0, 0], [1, 1, 1], [2, 2, 2]],
    trns: [255, 255, 0],
    pixel: (x, y) => [x === 9 && y === 10 ? 2 : (x + y) % 2],
  });
  assertEquals(hasTransparentPixels(palette), true);
  const grayAlpha = (alpha: number) =>
    encodePng({
      width: 7,
      height: 7,
      colorType: 4,
      bitDepth: 16,
      interlace: true,
      pixel: (x, y) => [noise(x, y, 0) * 256, x === 6 && y === 5 ? alpha : 65535],
    });
  assertEquals(hasTransparentPixels(grayAlpha(65535)), false);
  assertEquals(hasTransparentPixels(grayAlpha(65534)), true);
});

const FILTERS: { name: string; filter: PngFilterType | PngFilterType[] }[] = [
  { name: "None", filter: 0 },
  { name: "Sub", filter: 1 },
  { name: "Up", filter: 2 },
  { name: "Average", filter: 3 },
  { name: "Paeth", filter: 4 },
  { name: "mixed per row", filter: [4, 3, 2, 1, 0, 1, 4] },
];

for (const { name, filter } of FILTERS) {
  Deno.test(`filter ${name}: RGBA, opaque vs one transparent last pixel`, () => {
    const rgba = (lastAlpha: number, interlace: boolean) =>
      encodePng({
        width: 17,
        height: 9,
        filter,
        interlace,
        pixel: (
          x,
          y,
        ) => [
          noise(x, y, 0),
          noise(x, y, 1),
          noise(x, y, 2),
          x === 16 && y === 8 ? lastAlpha : 255,
        ],
      });
    for (const interlace of [false, true]) {
      assertEquals(hasTransparentPixels(rgba(255, interlace)), false, `interlace ${interlace}`);
      assertEquals(hasTransparentPixels(rgba(254, interlace)), true, `interlace ${interlace}`);
    }
  });

  // A tRNS colour only matches if every byte before it was unfiltered exactly right.
  Deno.test(`filter ${name}: RGB tRNS colour in the last pixel, 8 and 16 bits`, () => {
    for (const bitDepth of [8, 16] as const) {
      const scale = bitDepth === 16 ? 257 : 1;
      const key = [3 * scale, 141 * scale, 250 * scale];
      const png = encodePng({
        width: 23,
        height: 11,
        colorType: 2,
        bitDepth,
        filter,
        trns: key,
        pixel: (x, y) =>
          x === 22 && y === 10
            ? key
            : [0, 1, 2].map((c) =>
              noise(x, y, c) * (bitDepth === 16 ? 256 : 1) + (bitDepth === 16 ? x : 0)
            ),
      });
      assertEquals(hasTransparentPixels(png), true, `${bitDepth}-bit`);
    }
  });

  Deno.test(`filter ${name}: 4-bit palette and 16-bit gray+alpha`, () => {
    const palette = Array.from({ length: 16 }, (_, i) => [i * 16, i, 255 - i]);
    const trns = palette.map((_, i) => (i === 15 ? 0 : 255));
    const indexed = (last: number) =>
      encodePng({
        width: 13,
        height: 6,
        colorType: 3,
        bitDepth: 4,
        palette,
        trns,
        filter,
        pixel: (x, y) => [x === 12 && y === 5 ? last : noise(x, y, 0) % 15],
      });
    assertEquals(hasTransparentPixels(indexed(3)), false);
    assertEquals(hasTransparentPixels(indexed(15)), true);
    const grayAlpha = (lastAlpha: number) =>
      encodePng({
        width: 9,
        height: 6,
        colorType: 4,
        bitDepth: 16,
        filter,
        pixel: (x, y) => [noise(x, y, 0) * 251, x === 8 && y === 5 ? lastAlpha : 65535],
      });
    assertEquals(hasTransparentPixels(grayAlpha(65535)), false);
    assertEquals(hasTransparentPixels(grayAlpha(65534)), true);
  });
}
