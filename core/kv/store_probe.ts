/**
 * The readiness probe of the store: one write and one read of this process's probe key, both
 * within the deadline. Probes asked for while one is under way share it, so a store that does
 * not answer holds one probe, not one per poll of /readyz.
 */

import { kvKeys } from "./kv_keys.ts";
import type { KvBackend } from "./kv_backend.ts";

/** What a probe found: the store answered both calls in time, or why not. */
export type ProbeResult = { ok: true } | { ok: false; reason: string };

/** How long a probe key is kept after its last write. */
const PROBE_TTL_MS = 60_000;

export class StoreProbe {
  readonly #kv: KvBackend;
  readonly #instanceId: string;
  readonly #deadlineMs: number;
  #running: Promise<ProbeResult> | null = null;

  constructor(kv: KvBackend, options: { instanceId: string; deadlineMs: number }) {
    this.#kv = kv;
    this.#instanceId = options.instanceId;
    this.#deadlineMs = options.deadlineMs;
  }

  /** Writes and reads the probe key; `ok: false` when either fails or misses the deadline. */
  probe(): Promise<ProbeResult> {
    return this.#running ??= this.#probe().finally(() => this.#running = null);
  }

  async #probe(): Promise<ProbeResult> {
    const key = kvKeys.readinessProbe(this.#instanceId);
    const at = Date.now();
    const work = (async (): Promise<ProbeResult> => {
      // kv-locked: a probe that meets a locked database fails, and the next poll probes again.
      await this.#kv.set(key, at, { expireIn: PROBE_TTL_MS });
      const read = await this.#kv.get<number>(key);
      return read.value === null
        ? { ok: false, reason: "the probe key written was not read back" }
        : { ok: true };
    })().catch((error): ProbeResult => ({
      ok: false,
      reason: error instanceof Error ? error.message : String(error),
    }));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<ProbeResult>((resolve) => {
      timer = setTimeout(
        () =>
          resolve({
            ok: false,
            reason: `the store did not answer a read and a write within ${this.#deadlineMs} ms`,
          }),
        this.#deadlineMs,
      );
    });
    try {
      return await Promise.race([work, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}
