/**
 * PNG validation judged from the bytes alone, for image-edit uploads: the file structure
 * (signature, chunk lengths and CRCs, header fields) and whether any pixel is see-through.
 */

import { inflateSync } from "node:zlib";
import { concatBytes } from "../util/bytes.ts";

/** Why a PNG was rejected. */
export type PngErrorReason = "not_png" | "truncated" | "corrupt" | "too_large";

/** A PNG that cannot be used, with a `reason` a caller can branch on. */
export class PngError extends Error {
  readonly reason: PngErrorReason;

  constructor(reason: PngErrorReason, message: string) {
    super(message);
    this.name = "PngError";
    this.reason = reason;
  }
}

/** What the IHDR chunk (and the presence of tRNS) says about an image. */
export interface PngInfo {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  interlaced: boolean;
  /** Color types 4 and 6 carry alpha; any other type with a tRNS chunk can be transparent too. */
  hasAlphaChannel: boolean;
}

const PNG_SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];
const MAX_CHUNK_LENGTH = 0x7fffffff;
const MAX_DIMENSION = 0x7fffffff;

/** Samples per pixel for each color type. */
const CHANNELS_BY_COLOR_TYPE: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

const BIT_DEPTHS_BY_COLOR_TYPE: Record<number, readonly number[]> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
};

/** Adam7 passes: where each pass starts and how far apart its pixels are. */
const ADAM7_PASSES = [
  { x: 0, y: 0, dx: 8, dy: 8 },
  { x: 4, y: 0, dx: 8, dy: 8 },
  { x: 0, y: 4, dx: 4, dy: 8 },
  { x: 2, y: 0, dx: 4, dy: 4 },
  { x: 0, y: 2, dx: 2, dy: 4 },
  { x: 1, y: 0, dx: 2, dy: 2 },
  { x: 0, y: 1, dx: 1, dy: 2 },
];

const CRC_TABLE = crcTable();

function crcTable(): Uint32Array {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

/** The CRC-32 used by PNG chunks (and zlib's gzip), as an unsigned 32-bit number. */
export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) crc = CRC_TABLE[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

interface PngChunk {
  type: string;
  data: Uint8Array;
}

/** A structurally valid PNG: its header plus what decoding the pixels needs. */
interface ParsedPng {
  info: PngInfo;
  /** tRNS data: alpha per palette index (type 3) or the 16-bit transparent colour (types 0, 2). */
  transparency: Uint8Array | undefined;
  imageData: Uint8Array;
}

function readUint32(bytes: Uint8Array, offset: number): number {
  return ((bytes[offset] << 24) | (bytes[offset + 1] << 16) | (bytes[offset + 2] << 8) |
    bytes[offset + 3]) >>> 0;
}

function checkSignature(bytes: Uint8Array): void {
  const present = Math.min(bytes.length, PNG_SIGNATURE.length);
  const matches = PNG_SIGNATURE.slice(0, present).every((byte, i) => bytes[i] === byte);
  if (bytes.length === 0 || !matches) {
    throw new PngError(
      "not_png",
      "The file is not a PNG image: it does not start with the PNG signature.",
    );
  }
  if (bytes.length < PNG_SIGNATURE.length) {
    throw new PngError("truncated", "The PNG file is truncated: it ends inside the signature.");
  }
}

/** Every chunk up to and including IEND, each with its length and CRC checked. */
function readChunks(bytes: Uint8Array): PngChunk[] {
  const chunks: PngChunk[] = [];
  let offset = PNG_SIGNATURE.length;
  while (offset < bytes.length) {
    if (offset + 8 > bytes.length) {
      throw new PngError("truncated", "The PNG file is truncated: it ends inside a chunk header.");
    }
    const length = readUint32(bytes, offset);
    const type = String.fromCharCode(...bytes.subarray(offset + 4, offset + 8));
    if (length > MAX_CHUNK_LENGTH) {
      throw new PngError(
        "corrupt",
        `The PNG file is corrupt: chunk ${type} has an invalid length.`,
      );
    }
    const end = offset + 12 + length;
    if (end > bytes.length) {
      throw new PngError(
        "truncated",
        `The PNG file is truncated: chunk ${type} runs past the end of the file.`,
      );
    }
    if (crc32(bytes.subarray(offset + 4, end - 4)) !== readUint32(bytes, end - 4)) {
      throw new PngError("corrupt", `The PNG file is corrupt: the CRC of chunk ${type} is wrong.`);
    }
    chunks.push({ type, data: bytes.subarray(offset + 8, end - 4) });
    if (type === "IEND") return chunks;
    offset = end;
  }
  throw new PngError("truncated", "The PNG file is truncated: it has no IEND chunk.");
}

function corruptHeader(problem: string): PngError {
  return new PngError("corrupt", `The PNG file is corrupt: the IHDR chunk ${problem}.`);
}

function readHeader(data: Uint8Array): Omit<PngInfo, "hasAlphaChannel"> {
  if (data.length !== 13) throw corruptHeader("is not 13 bytes long");
  const width = readUint32(data, 0);
  const height = readUint32(data, 4);
  const [bitDepth, colorType, compression, filter, interlace] = data.subarray(8);
  if (width === 0 || height === 0 || width > MAX_DIMENSION || height > MAX_DIMENSION) {
    throw corruptHeader(`gives an invalid size ${width}x${height}`);
  }
  const bitDepths = BIT_DEPTHS_BY_COLOR_TYPE[colorType];
  if (bitDepths === undefined) throw corruptHeader(`gives an unknown color type ${colorType}`);
  if (!bitDepths.includes(bitDepth)) {
    throw corruptHeader(`gives bit depth ${bitDepth}, invalid for color type ${colorType}`);
  }
  if (compression !== 0) throw corruptHeader(`gives an unknown compression method ${compression}`);
  if (filter !== 0) throw corruptHeader(`gives an unknown filter method ${filter}`);
  if (interlace > 1) throw corruptHeader(`gives an unknown interlace method ${interlace}`);
  return { width, height, bitDepth, colorType, interlaced: interlace === 1 };
}

function checkPalette(colorType: number, palette: Uint8Array | undefined): void {
  if (palette === undefined) {
    if (colorType === 3) {
      throw new PngError("corrupt", "The PNG file is corrupt: a palette image has no PLTE chunk.");
    }
    return;
  }
  if (colorType === 0 || colorType === 4) {
    throw new PngError("corrupt", "The PNG file is corrupt: a grayscale image has a PLTE chunk.");
  }
  if (palette.length === 0 || palette.length % 3 !== 0 || palette.length > 256 * 3) {
    throw new PngError("corrupt", "The PNG file is corrupt: the PLTE chunk has an invalid length.");
  }
}

/** The tRNS data if it applies to this color type; types 4 and 6 ignore it, like libpng does. */
function checkTransparency(
  colorType: number,
  transparency: Uint8Array | undefined,
  palette: Uint8Array | undefined,
): Uint8Array | undefined {
  if (transparency === undefined || colorType === 4 || colorType === 6) return undefined;
  const maxLength = colorType === 0 ? 2 : colorType === 2 ? 6 : (palette?.length ?? 0) / 3;
  const valid = colorType === 3
    ? transparency.length <= maxLength
    : transparency.length === maxLength;
  if (!valid) {
    throw new PngError("corrupt", "The PNG file is corrupt: the tRNS chunk has an invalid length.");
  }
  return transparency;
}

function parsePng(bytes: Uint8Array): ParsedPng {
  checkSignature(bytes);
  const [header, ...rest] = readChunks(bytes);
  if (header.type !== "IHDR") {
    throw new PngError("corrupt", "The PNG file is corrupt: its first chunk is not IHDR.");
  }
  const info = readHeader(header.data);
  let palette: Uint8Array | undefined;
  let transparency: Uint8Array | undefined;
  const imageData: Uint8Array[] = [];
  for (const chunk of rest) {
    if (chunk.type === "IHDR") {
      throw new PngError("corrupt", "The PNG file is corrupt: it has more than one IHDR chunk.");
    }
    if (chunk.type === "PLTE") palette = chunk.data;
    if (chunk.type === "tRNS") transparency = chunk.data;
    if (chunk.type === "IDAT") imageData.push(chunk.data);
  }
  if (imageData.length === 0) {
    throw new PngError("corrupt", "The PNG file is corrupt: it has no IDAT chunk.");
  }
  checkPalette(info.colorType, palette);
  const usedTransparency = checkTransparency(info.colorType, transparency, palette);
  const hasAlphaChannel = info.colorType === 4 || info.colorType === 6 ||
    usedTransparency !== undefined;
  return {
    info: { ...info, hasAlphaChannel },
    transparency: usedTransparency,
    imageData: concatBytes(imageData),
  };
}

/** Checks the structure of a PNG and returns its header. Throws `PngError`. */
export function readPng(bytes: Uint8Array): PngInfo {
  return parsePng(bytes).info;
}

/** One sub-image of the encoded data: the whole image, or one Adam7 pass. */
interface ImagePass {
  width: number;
  height: number;
  /** Bytes per row, not counting the filter-type byte. */
  rowLength: number;
}

function bitsPerPixel(info: PngInfo): number {
  return CHANNELS_BY_COLOR_TYPE[info.colorType] * info.bitDepth;
}

function imagePasses(info: PngInfo): ImagePass[] {
  const bits = bitsPerPixel(info);
  const pass = (width: number, height: number) => ({
    width,
    height,
    rowLength: Math.ceil((width * bits) / 8),
  });
  if (!info.interlaced) return [pass(info.width, info.height)];
  return ADAM7_PASSES
    .map(({ x, y, dx, dy }) =>
      pass(
        Math.ceil(Math.max(0, info.width - x) / dx),
        Math.ceil(Math.max(0, info.height - y) / dy),
      )
    )
    .filter(({ width, height }) => width > 0 && height > 0);
}

function inflateImageData(imageData: Uint8Array, expectedLength: number): Uint8Array {
  let raw: Uint8Array;
  try {
    // maxOutputLength makes an oversized stream fail instead of filling memory.
    raw = inflateSync(imageData, { maxOutputLength: expectedLength });
  } catch (error) {
    throw new PngError(
      "corrupt",
      `The PNG file is corrupt: its image data does not decompress to the size its header ` +
        `gives (${(error as Error).message}).`,
    );
  }
  if (raw.length !== expectedLength) {
    throw new PngError(
      "corrupt",
      `The PNG file is corrupt: its image data holds ${raw.length} bytes, ` +
        `${expectedLength} expected.`,
    );
  }
  return raw;
}

function paethPredictor(left: number, up: number, upLeft: number): number {
  const estimate = left + up - upLeft;
  const toLeft = Math.abs(estimate - left);
  const toUp = Math.abs(estimate - up);
  const toUpLeft = Math.abs(estimate - upLeft);
  if (toLeft <= toUp && toLeft <= toUpLeft) return left;
  return toUp <= toUpLeft ? up : upLeft;
}

/** Reverses one row's filter in place; `prior` is the already unfiltered row above (or zeros). */
function unfilterRow(
  filterType: number,
  row: Uint8Array,
  prior: Uint8Array,
  bytesPerPixel: number,
): void {
  // Uint8Array stores wrap modulo 256, which is exactly the arithmetic PNG filters use.
  switch (filterType) {
    case 0:
      return;
    case 1:
      for (let i = bytesPerPixel; i < row.length; i++) row[i] += row[i - bytesPerPixel];
      return;
    case 2:
      for (let i = 0; i < row.length; i++) row[i] += prior[i];
      return;
    case 3:
      for (let i = 0; i < row.length; i++) {
        const left = i >= bytesPerPixel ? row[i - bytesPerPixel] : 0;
        row[i] += (left + prior[i]) >> 1;
      }
      return;
    case 4:
      for (let i = 0; i < row.length; i++) {
        const hasLeft = i >= bytesPerPixel;
        row[i] += paethPredictor(
          hasLeft ? row[i - bytesPerPixel] : 0,
          prior[i],
          hasLeft ? prior[i - bytesPerPixel] : 0,
        );
      }
      return;
    default:
      throw new PngError(
        "corrupt",
        `The PNG file is corrupt: a row has filter type ${filterType}.`,
      );
  }
}

/** Unfiltered rows of one pass, decoded in place inside `raw` starting at `offset`. */
function unfilterPass(
  raw: Uint8Array,
  offset: number,
  pass: ImagePass,
  bytesPerPixel: number,
): Uint8Array[] {
  const rows: Uint8Array[] = [];
  let prior: Uint8Array = new Uint8Array(pass.rowLength);
  for (let y = 0; y < pass.height; y++) {
    const rowStart = offset + y * (pass.rowLength + 1);
    const row = raw.subarray(rowStart + 1, rowStart + 1 + pass.rowLength);
    unfilterRow(raw[rowStart], row, prior, bytesPerPixel);
    rows.push(row);
    prior = row;
  }
  return rows;
}

/** The `index`-th sample of a row, at bit depth 1, 2, 4, 8 or 16 (big-endian, MSB first). */
function readSample(row: Uint8Array, index: number, bitDepth: number): number {
  if (bitDepth === 8) return row[index];
  if (bitDepth === 16) return (row[2 * index] << 8) | row[2 * index + 1];
  const bitOffset = index * bitDepth;
  return (row[bitOffset >> 3] >> (8 - bitDepth - (bitOffset & 7))) & ((1 << bitDepth) - 1);
}

type PixelTest = (row: Uint8Array, x: number) => boolean;

/**
 * Whether the pixel at `x` of a row is see-through for this image's color type: not fully opaque
 * (`fully` false), or fully transparent, alpha 0 (`fully` true). A tRNS key colour is fully
 * transparent either way.
 */
function seeThroughPixelTest(png: ParsedPng, fully: boolean): PixelTest {
  const { colorType, bitDepth } = png.info;
  const opaque = (1 << bitDepth) - 1;
  const transparency = png.transparency ?? new Uint8Array();
  // tRNS colours are 16-bit; they are compared as is, so an out-of-range one never matches.
  const key = (channel: number) => readSample(transparency, channel, 16);
  const seeThrough = fully
    ? (alpha: number) => alpha === 0
    : (alpha: number, max: number) => alpha < max;
  switch (colorType) {
    case 4:
      return (row, x) => seeThrough(readSample(row, 2 * x + 1, bitDepth), opaque);
    case 6:
      return (row, x) => seeThrough(readSample(row, 4 * x + 3, bitDepth), opaque);
    case 3:
      return (row, x) => {
        const index = readSample(row, x, bitDepth);
        return index < transparency.length && seeThrough(transparency[index], 255);
      };
    case 0:
      return (row, x) => readSample(row, x, bitDepth) === key(0);
    default:
      return (row, x) =>
        readSample(row, 3 * x, bitDepth) === key(0) &&
        readSample(row, 3 * x + 1, bitDepth) === key(1) &&
        readSample(row, 3 * x + 2, bitDepth) === key(2);
  }
}

/** Options of the transparency checks. */
export interface TransparencyOptions {
  /** Most pixels decoded; a larger image throws `PngError` `too_large`. Default 16,777,216. */
  maxPixels?: number;
}

/** Decodes the image and tells whether any pixel passes the see-through test. */
function findSeeThroughPixel(bytes: Uint8Array, fully: boolean, maxPixels: number): boolean {
  const png = parsePng(bytes);
  const { info } = png;
  const pixels = info.width * info.height;
  if (pixels > maxPixels) {
    throw new PngError(
      "too_large",
      `The PNG image is too large: ${info.width}x${info.height} is ${pixels} pixels, ` +
        `more than the limit of ${maxPixels}.`,
    );
  }
  if (!info.hasAlphaChannel) return false;
  const passes = imagePasses(info);
  const expectedLength = passes.reduce((total, p) => total + p.height * (p.rowLength + 1), 0);
  const raw = inflateImageData(png.imageData, expectedLength);
  const bytesPerPixel = Math.max(1, bitsPerPixel(info) >> 3);
  const isSeeThrough = seeThroughPixelTest(png, fully);
  let offset = 0;
  let found = false;
  // Every pass is unfiltered even after a hit, so a bad filter byte is always reported.
  for (const pass of passes) {
    for (const row of unfilterPass(raw, offset, pass, bytesPerPixel)) {
      for (let x = 0; !found && x < pass.width; x++) found = isSeeThrough(row, x);
    }
    offset += pass.height * (pass.rowLength + 1);
  }
  return found;
}

const DEFAULT_MAX_PIXELS = 16_777_216;

/**
 * Decodes the image and tells whether any pixel is not fully opaque. Images without an alpha
 * channel or tRNS chunk are opaque by construction and are not decoded. Throws `PngError`,
 * with reason `too_large` when width × height exceeds `maxPixels`.
 */
export function hasTransparentPixels(bytes: Uint8Array, maxPixels = DEFAULT_MAX_PIXELS): boolean {
  return findSeeThroughPixel(bytes, false, maxPixels);
}

/**
 * Decodes the image and tells whether any pixel is fully transparent (alpha 0, a palette entry
 * with tRNS alpha 0, or the tRNS key colour): what an edit mask must have, since fully transparent
 * areas mark where to edit. Throws like `hasTransparentPixels`.
 */
export function hasFullyTransparentPixels(
  bytes: Uint8Array,
  { maxPixels = DEFAULT_MAX_PIXELS }: TransparencyOptions = {},
): boolean {
  return findSeeThroughPixel(bytes, true, maxPixels);
}
