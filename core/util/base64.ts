/** Base64 through the built-ins (`Uint8Array.prototype.toBase64`, `Uint8Array.fromBase64`). */

/**
 * `text` (base64, ASCII whitespace allowed, padding optional) as bytes, or null when it is not
 * base64: the built-in throws, and every caller answers a bad input in its own words.
 */
export function bytesOfBase64(text: string): Uint8Array<ArrayBuffer> | null {
  try {
    return Uint8Array.fromBase64(text);
  } catch {
    return null;
  }
}
