/**
 * An `openai` channel's float answer to a float request, passed on as the upstream wrote it, as
 * bytes, with only the top-level `model` renamed (design: same format, pass the body through).
 * Decoding sixty kilobytes of digits to text and encoding them back cost more than the rest of
 * the request (the bench's embeddings row); the bytes are the upstream's own. Pure.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const encoder = new TextEncoder();

/** Whether `bytes` holds `token` at `at`. */
function holdsAt(bytes: Uint8Array, token: Uint8Array, at: number): boolean {
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

const MODEL_KEY = tokenOf('"model"');

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
function stringEnd(bytes: Uint8Array, open: number): number {
  for (let at = open + 1; at < bytes.length; at++) {
    if (bytes[at] === BACKSLASH) at++;
    else if (bytes[at] === QUOTE) return at + 1;
  }
  return -1;
}

/**
 * `answer` (a JSON object whose data holds only numbers and strings without `"model"`) with its
 * last `"model": "…"` member set to `model`, or null when there is none to set. Embedding arrays
 * hold numbers only, so the last `"model"` key is the top-level one (OpenAI writes it after
 * `data`). The same bytes when the name is already `model`.
 */
export function withModelRenamed(answer: Uint8Array, model: string): Uint8Array | null {
  for (
    let key = lastIndexOfToken(answer, MODEL_KEY);
    key >= 0;
    key = lastIndexOfToken(answer, MODEL_KEY, key - 1)
  ) {
    const colon = skipSpace(answer, key + 7);
    if (answer[colon] !== 0x3a) continue;
    const open = skipSpace(answer, colon + 1);
    if (answer[open] !== QUOTE) continue;
    const close = stringEnd(answer, open);
    if (close < 0) return null;
    const name = encoder.encode(`"model":${JSON.stringify(model)}`);
    if (close - key === name.length && holdsAt(answer, name, key)) return answer;
    const renamed = new Uint8Array(key + name.length + answer.length - close);
    renamed.set(answer.subarray(0, key));
    renamed.set(name, key);
    renamed.set(answer.subarray(close), key + name.length);
    return renamed;
  }
  return null;
}
