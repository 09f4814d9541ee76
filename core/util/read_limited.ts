/** Reads a byte stream whole, giving up as soon as it passes a size limit. */

import { concatBytes } from "./bytes.ts";

export async function readLimited(
  stream: ReadableStream<Uint8Array>,
  { maxBytes, tooLarge, idleMs, onIdle }: {
    maxBytes: number;
    tooLarge: () => Error;
    /** Longest wait for the next chunk; then `onIdle()`'s error. */
    idleMs?: number;
    onIdle?: () => Error;
  },
): Promise<Uint8Array<ArrayBuffer>> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (true) {
    const { value, done } = idleMs === undefined
      ? await reader.read()
      : await readWithin(reader, { idleMs, onIdle: onIdle! });
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

async function readWithin(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  { idleMs, onIdle }: { idleMs: number; onIdle: () => Error },
): Promise<ReadableStreamReadResult<Uint8Array>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      reader.read(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          // Reject before cancelling: a cancel settles the pending read as "done" at once, and
          // the race must not take that for the end of the body.
          reject(onIdle());
          reader.cancel().catch(() => {});
        }, idleMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
