/**
 * Searches in JSON text held as bytes (UTF-8), for answers passed on without decoding them. Pure.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const encoder = new TextEncoder();

/** Whether `bytes` holds `token` at `at`. */
export function holdsAt(bytes: Uint8Array, token: Uint8Array, at: number): boolean {
  if (at < 0 || at + token.length > bytes.length) return false;
  for (let i = 0; i < token.length; i++) if (bytes[at + i] !== token[i]) return false;
  return true;
}

/**
 * The first index at or after `from` where `token` starts, or -1. Jumps between the occurrences
 * of its first byte with the typed array's own search: in an embeddings answer that is a quote,
 * and numbers have none, so a vector is crossed in one native step.
 */
export function indexOfToken(bytes: Uint8Array, token: Uint8Array, from = 0): number {
  for (let at = bytes.indexOf(token[0], from); at >= 0; at = bytes.indexOf(token[0], at + 1)) {
    if (holdsAt(bytes, token, at)) return at;
  }
  return -1;
}

/** The last index at or before `from` where `token` starts, or -1. */
export function lastIndexOfToken(
  bytes: Uint8Array,
  token: Uint8Array,
  from = bytes.length - 1,
): number {
  if (from < 0) return -1;
  for (
    let at = bytes.lastIndexOf(token[0], from);
    at >= 0;
    at = at === 0 ? -1 : bytes.lastIndexOf(token[0], at - 1)
  ) {
    if (holdsAt(bytes, token, at)) return at;
  }
  return -1;
}

/** `text`'s UTF-8 bytes, for the searches above. */
export function tokenOf(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Whether `byte` is JSON whitespace. */
export function isJsonSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** The first index at or after `from` that is not JSON whitespace. */
export function skipSpace(bytes: Uint8Array, from: number): number {
  let at = from;
  while (at < bytes.length && isJsonSpace(bytes[at])) at++;
  return at;
}

/** The index just past the JSON string that opens at `open` (a quote), or -1 when unclosed. */
export function stringEnd(bytes: Uint8Array, open: number): number {
  for (let at = open + 1; at < bytes.length; at++) {
    if (bytes[at] === BACKSLASH) at++;
    else if (bytes[at] === QUOTE) return at + 1;
  }
  return -1;
}
