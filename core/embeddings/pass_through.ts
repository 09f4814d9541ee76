/**
 * An `openai` channel's answer in the encoding the client asked (floats or base64), passed on as
 * the upstream wrote it, as bytes, with only the top-level `model` renamed (design: same format,
 * pass the body through).
 * Decoding sixty kilobytes of digits to text and encoding them back cost more than the rest of
 * the request (the bench's embeddings row); the bytes are the upstream's own. Pure.
 */

import { holdsAt, lastIndexOfToken, skipSpace, stringEnd, tokenOf } from "../util/json_bytes.ts";

const QUOTE = 0x22;
const encoder = new TextEncoder();
const MODEL_KEY = tokenOf('"model"');

/**
 * `answer` (a JSON object whose data holds only numbers and strings without `"model"`) with its
 * last `"model": "…"` member set to `model`, or null when there is none to set. Embedding arrays
 * hold numbers only and base64 strings no quotes, so the last `"model"` key is the top-level one
 * (OpenAI writes it after `data`). The same bytes when the name is already `model`.
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
