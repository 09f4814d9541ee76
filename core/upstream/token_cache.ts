/**
 * Access tokens an upstream issues in exchange for a channel's credential (Vertex's OAuth token
 * for a service-account key), kept per channel key until shortly before they expire. Callers
 * asking at once for a key with no valid token share one fetch; a failed fetch is not kept.
 */

/** A token and when it stops being valid (epoch milliseconds, on the cache's clock). */
export interface IssuedToken {
  token: string;
  expiresAt: number;
}

/**
 * A token is renewed this long before it expires, so a call made with it cannot reach the
 * upstream after its end (Google's own client libraries renew 5 minutes early).
 */
export const RENEW_BEFORE_MS = 5 * 60_000;

export class TokenCache {
  readonly #now: () => number;
  readonly #tokens = new Map<string, IssuedToken>();
  readonly #fetching = new Map<string, Promise<IssuedToken>>();

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  /** The clock the expiry times are read on. */
  now(): number {
    return this.#now();
  }

  /**
   * The token for `cacheKey`: the kept one while it has more than RENEW_BEFORE_MS left, else
   * a fresh one from `fetchToken` (used for this call even when it is shorter-lived than that).
   */
  async token(cacheKey: string, fetchToken: () => Promise<IssuedToken>): Promise<string> {
    const kept = this.#tokens.get(cacheKey);
    if (kept && kept.expiresAt - RENEW_BEFORE_MS > this.#now()) return kept.token;
    let pending = this.#fetching.get(cacheKey);
    if (!pending) {
      pending = fetchToken().then((issued) => {
        this.#tokens.set(cacheKey, issued);
        return issued;
      }).finally(() => this.#fetching.delete(cacheKey));
      this.#fetching.set(cacheKey, pending);
    }
    return (await pending).token;
  }

  /**
   * Drops `token` for `cacheKey` (the upstream refused it before its time: revoked, or clocks
   * apart), unless a newer one has replaced it meanwhile.
   */
  forget(cacheKey: string, token: string): void {
    if (this.#tokens.get(cacheKey)?.token === token) this.#tokens.delete(cacheKey);
  }
}

/** The process's cache: tokens live in memory only, never in KV. */
export const upstreamTokens = new TokenCache();

/** The token for `cacheKey` from the process's cache (see `TokenCache.token`). */
export function cachedToken(
  cacheKey: string,
  fetchToken: () => Promise<IssuedToken>,
): Promise<string> {
  return upstreamTokens.token(cacheKey, fetchToken);
}
