/** Base64 for large binaries (node:buffer is native and far faster than btoa on strings). */

import { Buffer } from "node:buffer";

export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

/** Decodes strict base64; null when `text` is not base64. */
export function decodeBase64(text: string): Uint8Array<ArrayBuffer> | null {
  const clean = text.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 === 1) return null;
  const buffer = Buffer.from(clean, "base64");
  const out = new Uint8Array(buffer.length);
  out.set(buffer);
  return out;
}
