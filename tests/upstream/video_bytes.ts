/** The bytes a video simulator serves as a finished video: an MP4 box layout the sniffer knows. */

/**
 * An `ftyp` box (brand isom, so it is sniffed as video/mp4) and an `mdat` box of `size` bytes
 * that differ per `seed`: more than one media-store chunk, and each task's video its own.
 */
export function simulatedMp4(seed: number, size = 150_000): Uint8Array {
  const ftyp = [
    0,
    0,
    0,
    0x18,
    ...ascii("ftyp"),
    ...ascii("isom"),
    0,
    0,
    2,
    0,
    ...ascii("isom"),
    ...ascii("mp41"),
  ];
  const bytes = new Uint8Array(ftyp.length + 8 + size);
  bytes.set(ftyp);
  new DataView(bytes.buffer).setUint32(ftyp.length, 8 + size);
  bytes.set(ascii("mdat"), ftyp.length + 4);
  for (let index = 0; index < size; index++) {
    bytes[ftyp.length + 8 + index] = (index * 31 + seed * 7) & 0xff;
  }
  return bytes;
}

function ascii(text: string): number[] {
  return [...text].map((char) => char.charCodeAt(0));
}

/** The format of an image's bytes by its magic number (PNG, JPEG, WebP), or null. */
export function imageTypeOf(bytes: Uint8Array): string | null {
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) {
    return "image/png";
  }
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return "image/jpeg";
  if (String.fromCharCode(...bytes.subarray(8, 12)) === "WEBP") return "image/webp";
  return null;
}
