/** A byte stream that fails when its source sends nothing for too long (a client that stalls). */

/**
 * `source`, erroring with `onIdle()`'s error once `idleMs` pass without a chunk. A slow client
 * can then hold a request (and what it has sent so far) only that long between two chunks.
 * With `keepSource`, giving up (idle, this stream cancelled, or `release` aborted) releases
 * `source` rather than cancelling it: its owner ends it later (a client's body:
 * routes/final_response.ts).
 */
export function idleGuarded(
  source: ReadableStream<Uint8Array>,
  { idleMs, onIdle, keepSource = false, release }: {
    idleMs: number;
    onIdle: () => Error;
    keepSource?: boolean;
    release?: AbortSignal;
  },
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  const giveUp = (reason?: unknown) => {
    if (!keepSource) return reader.cancel(reason);
    try {
      reader.releaseLock();
    } catch {
      // released already
    }
    return Promise.resolve();
  };
  release?.addEventListener("abort", () => giveUp(), { once: true });
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
        giveUp().catch(() => {});
        controller.error(error);
      } finally {
        clearTimeout(timer);
      }
    },
    cancel(reason) {
      return giveUp(reason);
    },
  }, { highWaterMark: 0 });
}
