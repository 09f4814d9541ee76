/**
 * With two handles or two processes on one local KV file, a read or commit can throw
 * `TypeError: database is locked`. That is a passing conflict, like a failed check: try again.
 */

export function isKvLocked(error: unknown): boolean {
  return error instanceof TypeError && /database is locked/i.test(error.message);
}

/** Runs `work` again (with jitter) while it fails with a locked database, up to `attempts`. */
export async function withKvRetry<T>(work: () => Promise<T>, attempts = 10): Promise<T> {
  for (let attempt = 1;; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!isKvLocked(error) || attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
    }
  }
}
