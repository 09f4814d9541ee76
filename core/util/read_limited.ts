/** Reads a byte stream whole, giving up as soon as it passes a size limit. */

import { concatBytes } from "./bytes.ts";

export async function readLimited(
  stream: ReadableStream<Uint8Array>,
  { maxBytes, tooLarge }: { maxBytes: number; tooLarge: () => Error },
): Promise<Uint8Array<ArrayBuffer>> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (true) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return concatBytes(chunks);
}
