/**
 * Decodes a `data:` URL into its bytes, as the Fetch standard's data: URL processor does: the
 * media type up to the first comma (parameters allowed, e.g. `;name=kite.png`), `;base64` at its
 * end (any case) for base64, else a percent-encoded body. Relays answer images both ways. The
 * declared type is only a label: callers judge the bytes. Pure.
 */

import { bytesOfBase64 } from "../util/base64.ts";

export interface DecodedDataUrl {
  bytes: Uint8Array<ArrayBuffer>;
  /** The media type the URL declares (without parameters), lower case; "" when none. */
  declaredType: string;
}

/** Whether `text` is a data: URL (scheme in any case, leading spaces ignored as URLs do). */
export function isDataUrl(text: string): boolean {
  return /^\s*data:/i.test(text);
}

function percentDecode(text: string): Uint8Array<ArrayBuffer> {
  const raw = new TextEncoder().encode(text);
  const out = new Uint8Array(raw.length);
  let length = 0;
  for (let i = 0; i < raw.length; i++) {
    const hex = raw[i] === 0x25 ? String.fromCharCode(raw[i + 1] ?? 0, raw[i + 2] ?? 0) : "";
    if (/^[0-9a-f]{2}$/i.test(hex)) {
      out[length++] = parseInt(hex, 16);
      i += 2;
    } else {
      out[length++] = raw[i];
    }
  }
  return out.slice(0, length);
}

/** The bytes of a data: URL; null when `url` is not one, or its base64 body is not base64. */
export function decodeDataUrl(url: string): DecodedDataUrl | null {
  const match = /^\s*data:([^,]*),(.*)$/is.exec(url);
  if (!match) return null;
  const header = match[1];
  const base64 = /;\s*base64\s*$/i.test(header);
  const declaredType = header.split(";")[0].trim().toLowerCase();
  if (!base64) return { bytes: percentDecode(match[2]), declaredType };
  const bytes = bytesOfBase64(new TextDecoder().decode(percentDecode(match[2])));
  return bytes ? { bytes, declaredType } : null;
}
