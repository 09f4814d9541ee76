/**
 * Upstream access tokens (OAuth bearer tokens fetched with a channel key's credentials), kept in
 * memory per credential until shortly before they expire, so a request does not fetch one each
 * time. One fetch at a time per credential: requests that find none wait for the same fetch. A
 * failed fetch is never kept; the next request tries again.
 *
 * Memory only: a token is a secret, and a restarted gateway fetches a new one.
 */

/** A token as a provider's fetch gives it: the bearer token and when it expires (ms epoch). */
export interface FetchedToken {
  token: string;
  /** When the token stops working, on this machine's clock (from the answer's `expires_in`). */
  expiresAt: number;
}

/** A token an upstream issued (the name the Vertex provider uses). */
export type IssuedToken = FetchedToken;

export interface TokenCacheOptions {
  /** The clock, in ms (tests pass their own). */
  now?: () => number;
  /**
   * How long before its expiry a token is replaced (default 5 minutes). A token that lives less
   * than twice this is replaced at half its life.
   */
  refreshBeforeMs?: number;
  /** The most credentials kept; past it, expired entries go, then the oldest. */
  maxEntries?: number;
}

interface Entry {
  token: string;
  expiresAt: number;
  /** When a request should fetch a new one. */
  refreshAt: number;
}

const DEFAULT_REFRESH_BEFORE_MS = 5 * 60_000;
const DEFAULT_MAX_ENTRIES = 10_000;

export class TokenCache {
  readonly #entries = new Map<string, Entry>();
  readonly #fetching = new Map<string, Promise<string>>();
  readonly #now: () => number;
  readonly #refreshBeforeMs: number;
  readonly #maxEntries: number;

  constructor(options: TokenCacheOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#refreshBeforeMs = options.refreshBeforeMs ?? DEFAULT_REFRESH_BEFORE_MS;
    this.#maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  }

  /**
   * The token for `cacheKey`: the kept one while it is fresh, else one `fetchToken` gets. A
   * `cacheKey` names the credential, not only the channel (a channel id with the key's
   * fingerprint), so a replaced key never reuses its predecessor's token. When a refresh fails
   * while the kept token has not yet expired, the kept token is used.
   */
  get(cacheKey: string, fetchToken: () => Promise<FetchedToken>): Promise<string> {
    const entry = this.#entries.get(cacheKey);
    const now = this.#now();
    if (entry && now < entry.refreshAt) return Promise.resolve(entry.token);
    const pending = this.#fetching.get(cacheKey);
    if (pending) return pending;
    const fetching = this.#fetch(cacheKey, fetchToken, entry).finally(() =>
      this.#fetching.delete(cacheKey)
    );
    this.#fetching.set(cacheKey, fetching);
    return fetching;
  }

  /**
   * Drops the token of `cacheKey` (the upstream refused it): the next request fetches one. With
   * `token`, only while that is still the kept one (a newer one may have replaced it meanwhile).
   */
  forget(cacheKey: string, token?: string): void {
    if (token === undefined || this.#entries.get(cacheKey)?.token === token) {
      this.#entries.delete(cacheKey);
    }
  }

  /** The clock the expiry times are read on. */
  now(): number {
    return this.#now();
  }

  /** How many credentials have a token kept. */
  get size(): number {
    return this.#entries.size;
  }

  async #fetch(
    cacheKey: string,
    fetchToken: () => Promise<FetchedToken>,
    stale: Entry | undefined,
  ): Promise<string> {
    let fetched: FetchedToken;
    try {
      fetched = await fetchToken();
    } catch (error) {
      if (stale && this.#now() < stale.expiresAt) return stale.token;
      throw error;
    }
    const now = this.#now();
    if (!fetched.token || !Number.isFinite(fetched.expiresAt) || fetched.expiresAt <= now) {
      // Used for this request only: a token that is already expired is not kept.
      return fetched.token;
    }
    const lifetime = fetched.expiresAt - now;
    const margin = Math.min(this.#refreshBeforeMs, lifetime / 2);
    this.#entries.delete(cacheKey);
    this.#entries.set(cacheKey, {
      token: fetched.token,
      expiresAt: fetched.expiresAt,
      refreshAt: fetched.expiresAt - margin,
    });
    this.#trim(now);
    return fetched.token;
  }

  #trim(now: number): void {
    if (this.#entries.size <= this.#maxEntries) return;
    for (const [key, entry] of this.#entries) {
      if (entry.expiresAt <= now) this.#entries.delete(key);
    }
    // Map order is insertion order: the first entries are the oldest.
    for (const key of this.#entries.keys()) {
      if (this.#entries.size <= this.#maxEntries) break;
      this.#entries.delete(key);
    }
  }
}

/** The gateway's one token cache (tokens are per credential, whichever channel type fetches). */
export const upstreamTokens = new TokenCache();

/** `upstreamTokens.get`: the cached token for `cacheKey`, fetched with `fetchToken` when due. */
export function cachedToken(
  cacheKey: string,
  fetchToken: () => Promise<FetchedToken>,
): Promise<string> {
  return upstreamTokens.get(cacheKey, fetchToken);
}

/** When a token answered with `expires_in` seconds at `now` (ms) expires. */
export function expiresAtOf(expiresInSeconds: number, now: number = Date.now()): number {
  return now + expiresInSeconds * 1000;
}
