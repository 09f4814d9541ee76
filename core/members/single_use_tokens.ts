/**
 * Single-use tokens: a reset link, an invitation, a sign-in challenge. The secret goes to the
 * person (in a link); KV keeps only its SHA-256, with the token's payload and expiry. Consuming
 * deletes the record in a commit that checks it is unchanged, so of any number of concurrent
 * consumptions exactly one gets the payload.
 */

import { kvKeys } from "../kv/kv_keys.ts";
import { withKvRetry } from "../kv/kv_retry.ts";
import type { KvBackend } from "../kv/kv_backend.ts";
import { randomBase62, sha256Hex } from "../util/ids.ts";

export type TokenKind = "reset" | "invitation" | "challenge";

interface StoredToken<T> {
  kind: TokenKind;
  payload: T;
  expires_at: number;
}

export const TOKEN_SHAPE = /^[0-9A-Za-z]{43}$/;

export class SingleUseTokens {
  #kv: KvBackend;

  constructor(kv: KvBackend) {
    this.#kv = kv;
  }

  /** A new token of `kind` carrying `payload`, valid `ttlMs`; returns the secret and its hash. */
  async issue<T>(
    kind: TokenKind,
    payload: T,
    ttlMs: number,
    now = Date.now(),
  ): Promise<{ secret: string; hash: string; expiresAt: number }> {
    const secret = randomBase62(43);
    const hash = await sha256Hex(secret);
    const stored: StoredToken<T> = { kind, payload, expires_at: now + ttlMs };
    await withKvRetry(() => this.#kv.set(kvKeys.memberToken(hash), stored, { expireIn: ttlMs }));
    return { secret, hash, expiresAt: stored.expires_at };
  }

  /** The payload of a live token of `kind`, without using it up (to show a form). */
  async peek<T>(kind: TokenKind, secret: string, now = Date.now()): Promise<T | null> {
    if (!TOKEN_SHAPE.test(secret)) return null;
    const entry = await this.#kv.get<StoredToken<T>>(kvKeys.memberToken(await sha256Hex(secret)));
    const stored = entry.value;
    return stored && stored.kind === kind && stored.expires_at > now ? stored.payload : null;
  }

  /** Uses the token up: its payload the one time this succeeds, else null (used, expired, unknown). */
  async consume<T>(kind: TokenKind, secret: string, now = Date.now()): Promise<T | null> {
    if (!TOKEN_SHAPE.test(secret)) return null;
    const key = kvKeys.memberToken(await sha256Hex(secret));
    const entry = await this.#kv.get<StoredToken<T>>(key);
    const stored = entry.value;
    if (!stored || stored.kind !== kind || stored.expires_at <= now) return null;
    const result = await withKvRetry(() => this.#kv.atomic().check(entry).delete(key).commit());
    return result.ok ? stored.payload : null;
  }

  /** Drops a token by its hash (an invitation withdrawn). */
  async revoke(hash: string): Promise<void> {
    await withKvRetry(() => this.#kv.delete(kvKeys.memberToken(hash)));
  }
}
