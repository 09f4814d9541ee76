/** A byte stream that fails when its source sends nothing for too long (a client that stalls). */

/**
 * `source`, erroring with `onIdle()`'s error once `idleMs` pass without a chunk. A slow client
 * can then hold a request (and what it has sent so far) only that long between two chunks.
 */
export function idleGuarded(
  source: ReadableStream<Uint8Array>,
  { idleMs, onIdle }: { idleMs: number; onIdle: () => Error },
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const idle = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(onIdle()), idleMs);
      });
      try {
        const { value, done } = await Promise.race([reader.read(), idle]);
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        reader.cancel().catch(() => {});
        controller.error(error);
      } finally {
        clearTimeout(timer);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}
