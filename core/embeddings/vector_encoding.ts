/**
 * Embedding vectors as numbers or as base64, as OpenAI sends `encoding_format: "base64"`: the
 * vector's float32 values, little-endian, base64-encoded. Pure.
 */

import { bytesOfBase64 } from "../util/base64.ts";

/** `vector` as base64 of its little-endian float32 bytes. */
export function vectorToBase64(vector: readonly number[]): string {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  vector.forEach((value, index) => view.setFloat32(index * 4, value, true));
  return bytes.toBase64();
}

/** The numbers of a base64 float32 vector; undefined when it is not one. */
export function vectorFromBase64(text: string): number[] | undefined {
  const bytes = bytesOfBase64(text);
  if (!bytes || bytes.length % 4 !== 0) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Array.from({ length: bytes.length / 4 }, (_, index) => view.getFloat32(index * 4, true));
}

/** `vector` in the encoding asked for; undefined when a base64 answer is not float32. */
export function encodedVector(
  vector: number[] | string,
  base64: boolean,
): number[] | string | undefined {
  if (base64) return typeof vector === "string" ? vector : vectorToBase64(vector);
  return typeof vector === "string" ? vectorFromBase64(vector) : vector;
}
