/**
 * Personal access tokens: a member's credential for the account API (/v1/account), made for one
 * account in the console's Settings. The secret (`gwpat-…`) is shown once; KV keeps its SHA-256
 * only. A token names its member and account, never a role: the role is the member's current
 * one, looked up at each use (core/account_area/access_token_actor.ts).
 *
 * Lookups are cached in memory for at most ACCESS_TOKEN_CACHE_MS (the key cache's bound); a
 * revocation made through this process applies at once, one made on another instance within
 * that bound.
 */

import { z } from "zod";
import { GatewayError } from "../errors.ts";
import { kvKeys } from "../kv/kv_keys.ts";
import { withKvRetry } from "../kv/kv_retry.ts";
import type { KvBackend } from "../kv/kv_backend.ts";
import { newAccessTokenSecret, sha256Hex, timeOrderedId } from "../util/ids.ts";
import { validate } from "../util/validate.ts";

export const ACCESS_TOKEN_CACHE_MS = 5_000;
const NEGATIVE_CACHE_MS = 1_000;
const CACHE_LIMIT = 100_000;
/** Last use is written at most this often per token and instance. */
const LAST_USED_RESOLUTION_MS = 60_000;
/** Tokens one member may hold for one account. */
export const MAX_TOKENS_PER_ACCOUNT = 50;
/** The longest life a token may be given. */
export const MAX_TOKEN_DAYS = 366;

/** A personal access token's secret as presented: the prefix and 43 base62 chars. */
export const ACCESS_TOKEN_SHAPE = /^gwpat-[0-9A-Za-z]{43}$/;

export const accessTokenInputSchema = z.strictObject({
  name: z.string().trim().min(1).max(100),
  /** When the token stops working; null (or absent): it works until revoked. */
  expires_at: z.iso.datetime({ offset: true }).nullable().default(null),
});
export type AccessTokenInput = z.input<typeof accessTokenInputSchema>;

export interface AccessTokenRecord {
  id: string;
  member_id: string;
  account_id: string;
  name: string;
  /** The secret's first 10 characters, to recognise it by. */
  prefix: string;
  /** SHA-256 of the secret. */
  hash: string;
  created_at: string;
  expires_at: string | null;
}

/** What a member sees of a token: no hash. */
export interface AccessTokenView {
  id: string;
  name: string;
  prefix: string;
  account_id: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

const tokenNotFound = (id: string) =>
  new GatewayError("access_token_not_found", 404, `You have no access token with the id '${id}'`, {
    param: "id",
  });

/** 401 for a secret that names no live token (unknown, revoked, or not a token at all). */
export const invalidAccessToken = () =>
  new GatewayError(
    "invalid_access_token",
    401,
    "The personal access token is not valid (revoked or mistyped); make one in the console's " +
      "Settings and send it as 'Authorization: Bearer gwpat-…'",
  );

/** Checks a token's input: the name, and an expiry in the future within MAX_TOKEN_DAYS. */
export function checkAccessTokenInput(raw: unknown, now = Date.now()) {
  const input = validate(accessTokenInputSchema, raw);
  if (input.expires_at !== null) {
    const at = Date.parse(input.expires_at);
    if (at <= now) {
      throw new GatewayError("invalid_request", 400, "'expires_at' must be in the future", {
        param: "expires_at",
      });
    }
    if (at > now + MAX_TOKEN_DAYS * 86_400_000) {
      throw new GatewayError(
        "invalid_request",
        400,
        `'expires_at' must be at most ${MAX_TOKEN_DAYS} days from now`,
        { param: "expires_at" },
      );
    }
  }
  return input;
}

function viewOf(record: AccessTokenRecord, lastUsed: number | null): AccessTokenView {
  return {
    id: record.id,
    name: record.name,
    prefix: record.prefix,
    account_id: record.account_id,
    created_at: record.created_at,
    expires_at: record.expires_at,
    last_used_at: lastUsed === null ? null : new Date(lastUsed).toISOString(),
  };
}

export class AccessTokens {
  #kv: KvBackend;
  #track: (work: Promise<unknown>) => void;
  #cache = new Map<string, { record: AccessTokenRecord | null; until: number }>();
  #lastUseWritten = new Map<string, number>();

  constructor(kv: KvBackend, options: { track?: (work: Promise<unknown>) => void } = {}) {
    this.#kv = kv;
    this.#track = options.track ?? (() => {});
  }

  /** Makes a token of `memberId` for `accountId`; the secret is in the answer only. */
  async create(
    memberId: string,
    accountId: string,
    raw: unknown,
    now = Date.now(),
  ): Promise<AccessTokenView & { token: string }> {
    const input = checkAccessTokenInput(raw, now);
    const held = await this.#idsOf(memberId, accountId);
    if (held.length >= MAX_TOKENS_PER_ACCOUNT) {
      throw new GatewayError(
        "too_many_access_tokens",
        409,
        `You hold ${MAX_TOKENS_PER_ACCOUNT} access tokens for this account; revoke one first`,
      );
    }
    const secret = newAccessTokenSecret();
    const hash = await sha256Hex(secret);
    const record: AccessTokenRecord = {
      id: timeOrderedId("pat"),
      member_id: memberId,
      account_id: accountId,
      name: input.name,
      prefix: secret.slice(0, 10),
      hash,
      created_at: new Date(now).toISOString(),
      expires_at: input.expires_at === null ? null : new Date(input.expires_at).toISOString(),
    };
    const result = await withKvRetry(() =>
      this.#kv.atomic()
        .check({ key: kvKeys.accessTokenByHash(hash), versionstamp: null })
        .set(kvKeys.accessToken(record.id), record)
        .set(kvKeys.accessTokenByHash(hash), record.id)
        .set(kvKeys.memberAccessToken(memberId, accountId, record.id), record.id)
        .commit()
    );
    if (!result.ok) throw new GatewayError("conflict", 409, "Token collision; try again");
    this.#cache.delete(hash);
    return { ...viewOf(record, null), token: secret };
  }

  /** The tokens `memberId` holds for `accountId`, newest first. */
  async list(memberId: string, accountId: string): Promise<AccessTokenView[]> {
    const ids = (await this.#idsOf(memberId, accountId)).reverse();
    const views: AccessTokenView[] = [];
    for (const id of ids) {
      const record = (await this.#kv.get<AccessTokenRecord>(kvKeys.accessToken(id))).value;
      if (record) views.push(viewOf(record, await this.#lastUsed(id)));
    }
    return views;
  }

  /** One token of `memberId` for `accountId`, or 404 (another member's or account's too). */
  async get(memberId: string, accountId: string, id: string): Promise<AccessTokenView> {
    const record = await this.#own(memberId, accountId, id);
    return viewOf(record, await this.#lastUsed(id));
  }

  /** Revokes a token of `memberId` for `accountId`: it stops at once here, elsewhere within 5 s. */
  async revoke(memberId: string, accountId: string, id: string): Promise<void> {
    const record = await this.#own(memberId, accountId, id);
    await withKvRetry(() =>
      this.#kv.atomic()
        .delete(kvKeys.accessToken(id))
        .delete(kvKeys.accessTokenByHash(record.hash))
        .delete(kvKeys.memberAccessToken(memberId, accountId, id))
        .delete(kvKeys.accessTokenLastUsed(id))
        .commit()
    );
    this.#cache.delete(record.hash);
  }

  /**
   * The live token of a presented secret, or 401 (unknown, revoked, expired). Says nothing of
   * the member or the account: the caller checks those.
   */
  async authenticate(secret: string, now = Date.now()): Promise<AccessTokenRecord> {
    if (!ACCESS_TOKEN_SHAPE.test(secret)) throw invalidAccessToken();
    const hash = await sha256Hex(secret);
    let cached = this.#cache.get(hash);
    if (!cached || cached.until < now) {
      const id = (await this.#kv.get<string>(kvKeys.accessTokenByHash(hash))).value;
      const record = id
        ? (await this.#kv.get<AccessTokenRecord>(kvKeys.accessToken(id))).value
        : null;
      cached = {
        record,
        until: now + (record ? ACCESS_TOKEN_CACHE_MS : NEGATIVE_CACHE_MS),
      };
      if (this.#cache.size >= CACHE_LIMIT) this.#cache.clear();
      this.#cache.set(hash, cached);
    }
    const record = cached.record;
    if (!record || record.hash !== hash) throw invalidAccessToken();
    if (record.expires_at && Date.parse(record.expires_at) <= now) {
      throw new GatewayError(
        "access_token_expired",
        401,
        `The personal access token '${record.prefix}…' expired at ${record.expires_at}; make a ` +
          "new one in the console's Settings",
      );
    }
    this.#noteUse(record.id, now);
    return record;
  }

  async #own(memberId: string, accountId: string, id: string): Promise<AccessTokenRecord> {
    const record = /^pat_[0-9A-Za-z]{1,64}$/.test(id)
      ? (await this.#kv.get<AccessTokenRecord>(kvKeys.accessToken(id))).value
      : null;
    if (!record || record.member_id !== memberId || record.account_id !== accountId) {
      throw tokenNotFound(id);
    }
    return record;
  }

  async #idsOf(memberId: string, accountId: string): Promise<string[]> {
    const ids: string[] = [];
    const prefix = [...kvKeys.memberAccessTokens(memberId, accountId)];
    for await (const entry of this.#kv.list<string>({ prefix })) ids.push(entry.value);
    return ids;
  }

  async #lastUsed(id: string): Promise<number | null> {
    return (await this.#kv.get<number>(kvKeys.accessTokenLastUsed(id))).value;
  }

  #noteUse(id: string, now: number): void {
    if (now - (this.#lastUseWritten.get(id) ?? 0) < LAST_USED_RESOLUTION_MS) return;
    if (this.#lastUseWritten.size >= CACHE_LIMIT) this.#lastUseWritten.clear();
    this.#lastUseWritten.set(id, now);
    const write = withKvRetry(() => this.#kv.set(kvKeys.accessTokenLastUsed(id), now))
      .catch(() => {});
    this.#track(write);
  }
}
