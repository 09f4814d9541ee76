/** Reads a byte stream whole, giving up as soon as it passes a size limit. */

import { concatBytes } from "./bytes.ts";
import { Deadline } from "./deadline.ts";

export async function readLimited(
  stream: ReadableStream<Uint8Array>,
  { maxBytes, tooLarge, idleMs, onIdle, keepStream = false }: {
    maxBytes: number;
    tooLarge: () => Error;
    /** Longest wait for the next chunk; then `onIdle()`'s error. */
    idleMs?: number;
    onIdle?: () => Error;
    /**
     * On giving up (too large, idle), release the stream rather than cancel it: its owner ends
     * it later (a client's body, cancelled once the answer is out: routes/final_response.ts).
     */
    keepStream?: boolean;
  },
): Promise<Uint8Array<ArrayBuffer>> {
  const reader = stream.getReader();
  const giveUp = () => keepStream ? reader.releaseLock() : reader.cancel().catch(() => {});
  let idleError: Error | undefined;
  // One timer for the whole read, moved at each chunk; on expiry the cancel (or release) ends
  // the pending read, which the error set first tells apart from the body's end.
  const idle = idleMs === undefined ? undefined : new Deadline(idleMs, () => {
    idleError = onIdle!();
    giveUp();
  });
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (true) {
      const { value, done } = await reader.read().catch((error) => {
        throw idleError ?? error;
      });
      if (idleError) throw idleError;
      if (done) break;
      idle?.touch();
      size += value.length;
      if (size > maxBytes) {
        await giveUp();
        throw tooLarge();
      }
      chunks.push(value);
    }
  } finally {
    idle?.stop();
  }
  return onlyChunk(chunks) ?? concatBytes(chunks);
}

/** The one chunk of a body read in one, when it owns its whole buffer (no copy needed). */
function onlyChunk(chunks: Uint8Array[]): Uint8Array<ArrayBuffer> | undefined {
  const [chunk] = chunks;
  return chunks.length === 1 && chunk.buffer instanceof ArrayBuffer && chunk.byteOffset === 0 &&
      chunk.byteLength === chunk.buffer.byteLength
    ? chunk as Uint8Array<ArrayBuffer>
    : undefined;
}
