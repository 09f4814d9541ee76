/**
 * Each gateway process holds an instance lease in KV, renewed every third of its length. Work a
 * process leaves behind when it dies (a request's hold) carries its instance id, so any instance
 * can tell a live owner from a dead one: a lease that ran out means the process is gone.
 */

import { timeOrderedId } from "../util/ids.ts";
import { kvKeys } from "./kv_keys.ts";
import { withKvRetry } from "./kv_retry.ts";
import type { KvBackend } from "./kv_backend.ts";

/** How soon a failed renewal is tried again. */
const RETRY_MS = 1_000;

export interface InstanceRecord {
  id: string;
  started_at: string;
  /** Epoch ms until which the instance counts as alive without another renewal. */
  lease_until: number;
}

export class InstanceLease {
  readonly id = timeOrderedId("inst");
  readonly #kv: KvBackend;
  readonly #leaseMs: number;
  readonly #startedAt = new Date().toISOString();
  #timer?: ReturnType<typeof setInterval>;
  #retrying?: ReturnType<typeof setTimeout>;

  constructor(kv: KvBackend, options: { leaseMs: number }) {
    this.#kv = kv;
    this.#leaseMs = options.leaseMs;
  }

  /** Takes the lease and keeps renewing it until `stop()`. */
  async start(): Promise<void> {
    await this.#renew();
    this.#timer = setInterval(() => this.#renewOrRetry(), this.#leaseMs / 3);
  }

  /**
   * A renewal that failed (the store did not answer) is tried again every second until one
   * passes, so that a process renews at once when its store is back: after an outage longer than
   * the lease, another instance's sweep would otherwise take it for dead and return its leases.
   */
  #renewOrRetry(): void {
    if (this.#retrying) return;
    this.#renew().catch(() => {
      this.#retrying = setTimeout(() => {
        this.#retrying = undefined;
        this.#renewOrRetry();
      }, Math.min(RETRY_MS, this.#leaseMs / 3));
    });
  }

  async #renew(): Promise<void> {
    const record: InstanceRecord = {
      id: this.id,
      started_at: this.#startedAt,
      lease_until: Date.now() + this.#leaseMs,
    };
    // Kept a while past its lease, so a sweep can still tell "dead" from "never existed".
    await withKvRetry(() =>
      this.#kv.set(kvKeys.instance(this.id), record, { expireIn: this.#leaseMs * 10 })
    );
  }

  /** Gives the lease up (a graceful stop: this instance's work is done). */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    clearTimeout(this.#retrying);
    await withKvRetry(() => this.#kv.delete(kvKeys.instance(this.id))).catch(() => {});
  }
}

/** Whether instance `id` holds a live lease now. */
export async function isInstanceAlive(kv: KvBackend, id: string): Promise<boolean> {
  const record = (await kv.get<InstanceRecord>(kvKeys.instance(id))).value;
  return record !== null && record.lease_until > Date.now();
}
