/**
 * The SHA-256 of presented key secrets, remembered in memory for secrets that named a key, so a
 * busy key is not hashed again on every request (the hash is an async crypto op). Only secrets
 * that authenticated are kept — random secrets sprayed at the gateway are hashed each time and
 * never fill the map — and at most `limit` of them (the map starts over when full). Secrets stay
 * in this process's memory only, as they already pass through it with each request.
 */

import { sha256Hex } from "../util/ids.ts";

export class SecretHashes {
  readonly #hashes = new Map<string, string>();
  readonly #limit: number;

  constructor({ limit = 20_000 }: { limit?: number } = {}) {
    this.#limit = limit;
  }

  /** The hash of `secret`: remembered, or computed. */
  hashOf(secret: string): string | Promise<string> {
    return this.#hashes.get(secret) ?? sha256Hex(secret);
  }

  /** Remembers the hash of a secret that named a key. */
  remember(secret: string, hash: string): void {
    if (this.#hashes.has(secret)) return;
    if (this.#hashes.size >= this.#limit) this.#hashes.clear();
    this.#hashes.set(secret, hash);
  }

  get size(): number {
    return this.#hashes.size;
  }
}
