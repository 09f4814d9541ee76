/** Real PNG files for tests, written by a small encoder that follows the PNG spec. */

import { deflateSync } from "node:zlib";
import { crc32 } from "../../core/media/png.ts";
import { concatBytes } from "../../core/util/bytes.ts";

export type PngColorType = 0 | 2 | 3 | 4 | 6;
export type PngBitDepth = 1 | 2 | 4 | 8 | 16;
/** 0 None, 1 Sub, 2 Up, 3 Average, 4 Paeth. */
export type PngFilterType = 0 | 1 | 2 | 3 | 4;

export interface EncodePngOptions {
  width: number;
  height: number;
  /** Default 6 (RGBA). */
  colorType?: PngColorType;
  /** Default 8. Depths below 8 are only valid for color types 0 and 3. */
  bitDepth?: PngBitDepth;
  /** The samples of one pixel: [gray], [r, g, b], [index], [gray, alpha] or [r, g, b, a]. */
  pixel: (x: number, y: number) => number[];
  /** [r, g, b] per palette entry; written as PLTE. */
  palette?: number[][];
  /** tRNS content: alpha per palette index (type 3), [gray] (type 0) or [r, g, b] (type 2). */
  trns?: number[];
  /** Write Adam7 passes. */
  interlace?: boolean;
  /** Filter for every row, or a list cycled through row by row. Default 0 (None). */
  filter?: PngFilterType | readonly PngFilterType[];
  /** Split the compressed data into IDAT chunks of at most this many bytes. Default: one. */
  idatChunkSize?: number;
}

const SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];
const CHANNELS: Record<PngColorType, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const ADAM7_PASSES = [
  { x: 0, y: 0, dx: 8, dy: 8 },
  { x: 4, y: 0, dx: 8, dy: 8 },
  { x: 0, y: 4, dx: 4, dy: 8 },
  { x: 2, y: 0, dx: 4, dy: 4 },
  { x: 0, y: 2, dx: 2, dy: 4 },
  { x: 1, y: 0, dx: 2, dy: 2 },
  { x: 0, y: 1, dx: 1, dy: 2 },
];
const WHOLE_IMAGE = [{ x: 0, y: 0, dx: 1, dy: 1 }];

function uint32Bytes(value: number): number[] {
  return [(value >>> 24) & 0xff, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff];
}

/** One chunk: length, type, data and the CRC of type + data. */
export function pngChunk(type: string, data: Uint8Array | readonly number[]): Uint8Array {
  const chunk = new Uint8Array(12 + data.length);
  const view = new DataView(chunk.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) chunk[4 + i] = type.charCodeAt(i);
  chunk.set(data, 8);
  view.setUint32(8 + data.length, crc32(chunk.subarray(4, 8 + data.length)));
  return chunk;
}

/** The PNG signature followed by the given chunks. */
export function assemblePng(chunks: readonly Uint8Array[]): Uint8Array {
  return concatBytes([new Uint8Array(SIGNATURE), ...chunks]);
}

/** Packs samples big-endian, several per byte (MSB first) below 8 bits. */
function packSamples(samples: readonly number[], bitDepth: PngBitDepth): Uint8Array {
  const packed = new Uint8Array(Math.ceil((samples.length * bitDepth) / 8));
  samples.forEach((sample, i) => {
    if (bitDepth === 16) {
      packed[2 * i] = sample >> 8;
      packed[2 * i + 1] = sample & 0xff;
    } else if (bitDepth === 8) {
      packed[i] = sample;
    } else {
      const bit = i * bitDepth;
      packed[bit >> 3] |= sample << (8 - bitDepth - (bit & 7));
    }
  });
  return packed;
}

function paeth(left: number, up: number, upLeft: number): number {
  const p = left + up - upLeft;
  const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
  if (pa <= pb && pa <= pc) return left;
  return pb <= pc ? up : upLeft;
}

/** The filter-type byte followed by the filtered row. */
function filterRow(
  filter: PngFilterType,
  row: Uint8Array,
  prior: Uint8Array,
  bytesPerPixel: number,
): Uint8Array {
  const out = new Uint8Array(row.length + 1);
  out[0] = filter;
  for (let i = 0; i < row.length; i++) {
    const left = i >= bytesPerPixel ? row[i - bytesPerPixel] : 0;
    const up = prior[i];
    const upLeft = i >= bytesPerPixel ? prior[i - bytesPerPixel] : 0;
    const predictions = [0, left, up, (left + up) >> 1, paeth(left, up, upLeft)];
    out[i + 1] = row[i] - predictions[filter];
  }
  return out;
}

/** Encodes an image as a PNG, with real filters and real Adam7 passes. */
export function encodePng(options: EncodePngOptions): Uint8Array {
  const { width, height, pixel, palette, trns } = options;
  const colorType = options.colorType ?? 6;
  const bitDepth = options.bitDepth ?? 8;
  const channels = CHANNELS[colorType];
  const bytesPerPixel = Math.max(1, (channels * bitDepth) >> 3);
  const filters = typeof options.filter === "number" ? [options.filter] : options.filter ?? [0];
  const rows: Uint8Array[] = [];
  let rowNumber = 0;
  for (const pass of options.interlace ? ADAM7_PASSES : WHOLE_IMAGE) {
    const passWidth = Math.ceil(Math.max(0, width - pass.x) / pass.dx);
    const passHeight = Math.ceil(Math.max(0, height - pass.y) / pass.dy);
    if (passWidth === 0) continue;
    let prior: Uint8Array = new Uint8Array(Math.ceil((passWidth * channels * bitDepth) / 8));
    for (let py = 0; py < passHeight; py++) {
      const samples: number[] = [];
      for (let px = 0; px < passWidth; px++) {
        const [x, y] = [pass.x + px * pass.dx, pass.y + py * pass.dy];
        const pixelSamples = pixel(x, y);
        if (pixelSamples.length !== channels) {
          throw new Error(`pixel(${x}, ${y}) gave ${pixelSamples.length} samples, not ${channels}`);
        }
        samples.push(...pixelSamples);
      }
      const row = packSamples(samples, bitDepth);
      rows.push(filterRow(filters[rowNumber++ % filters.length], row, prior, bytesPerPixel));
      prior = row;
    }
  }
  const compressed = deflateSync(concatBytes(rows));
  const idatChunkSize = options.idatChunkSize ?? compressed.length;
  const idatChunks: Uint8Array[] = [];
  for (let offset = 0; offset < compressed.length; offset += idatChunkSize) {
    idatChunks.push(pngChunk("IDAT", compressed.subarray(offset, offset + idatChunkSize)));
  }
  const header = [...uint32Bytes(width), ...uint32Bytes(height)]
    .concat([bitDepth, colorType, 0, 0, options.interlace ? 1 : 0]);
  return assemblePng([
    pngChunk("IHDR", header),
    ...(palette ? [pngChunk("PLTE", palette.flat())] : []),
    ...(trns ? [pngChunk("tRNS", transparencyData(colorType, trns))] : []),
    ...idatChunks,
    pngChunk("IEND", []),
  ]);
}

/** tRNS data: one byte per palette entry, or a 16-bit sample per channel. */
function transparencyData(colorType: PngColorType, trns: readonly number[]): number[] {
  if (colorType === 3) return [...trns];
  return trns.flatMap((sample) => [sample >> 8, sample & 0xff]);
}

/** A deterministic PRNG (mulberry32), so "random" fixtures are the same on every run. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An opaque colour that varies across the image, so rows are not all alike. */
function gradient(x: number, y: number): number[] {
  return [(x * 4) & 0xff, (y * 4) & 0xff, ((x + y) * 2) & 0xff];
}

function isInMiddleSquare(x: number, y: number, size: number): boolean {
  const margin = Math.floor(size / 4);
  return x >= margin && x < size - margin && y >= margin && y < size - margin;
}

/** RGBA, opaque except for a fully transparent square in the middle. */
export function squarePngWithTransparency(size = 64): Uint8Array {
  return encodePng({
    width: size,
    height: size,
    pixel: (x, y) => [...gradient(x, y), isInMiddleSquare(x, y, size) ? 0 : 255],
  });
}

/** RGBA where every alpha is 255. */
export function squareOpaquePngWithAlpha(size = 64): Uint8Array {
  return encodePng({ width: size, height: size, pixel: (x, y) => [...gradient(x, y), 255] });
}

/** RGB, no alpha channel at all. */
export function squareOpaqueRgbPng(size = 64): Uint8Array {
  return encodePng({ width: size, height: size, colorType: 2, pixel: gradient });
}

/** RGBA, wider than tall, with a transparent left half. */
export function nonSquarePng(w = 64, h = 32): Uint8Array {
  return encodePng({
    width: w,
    height: h,
    pixel: (x, y) => [...gradient(x, y), x < w / 2 ? 0 : 255],
  });
}

/** A valid PNG cut in the middle of its IDAT chunk. */
export function truncatedPng(): Uint8Array {
  const whole = squarePngWithTransparency(16);
  // Signature (8) + IHDR chunk (25) + IDAT length and type (8).
  const idatDataStart = 8 + 25 + 8;
  const idatLength = new DataView(whole.buffer).getUint32(8 + 25);
  return whole.slice(0, idatDataStart + Math.floor(idatLength / 2));
}

/** JPEG magic bytes followed by junk. */
export function notAPng(): Uint8Array {
  return new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1, 2, 3]);
}

/** A square RGBA PNG over 4 MiB: random pixels (some transparent) that deflate cannot shrink. */
export function pngOver4MB(): Uint8Array {
  const random = seededRandom(0x5eed);
  const byte = () => Math.floor(random() * 256);
  return encodePng({ width: 1100, height: 1100, pixel: () => [byte(), byte(), byte(), byte()] });
}

/** An RGBA edit mask: the top half fully transparent, the bottom half opaque white. */
export function maskPng(width: number, height: number): Uint8Array {
  return encodePng({
    width,
    height,
    pixel: (_x, y) => (y < height / 2 ? [0, 0, 0, 0] : [255, 255, 255, 255]),
  });
}

/** An RGBA image of one colour. */
export function solidPng(
  width: number,
  height: number,
  rgba: [number, number, number, number],
): Uint8Array {
  return encodePng({ width, height, pixel: () => rgba });
}

/** An opaque RGB image of one colour, written row by row (fast at full image sizes). */
export function solidRgbPng(
  width: number,
  height: number,
  rgb: [number, number, number],
): Uint8Array {
  const row = new Uint8Array(1 + width * 3);
  for (let x = 0; x < width; x++) row.set(rgb, 1 + x * 3);
  const raw = new Uint8Array(row.length * height);
  for (let y = 0; y < height; y++) raw.set(row, y * row.length);
  const header = [...uint32Bytes(width), ...uint32Bytes(height), 8, 2, 0, 0, 0];
  return assemblePng([
    pngChunk("IHDR", header),
    pngChunk("IDAT", deflateSync(raw)),
    pngChunk("IEND", []),
  ]);
}
