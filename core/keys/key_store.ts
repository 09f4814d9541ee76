/**
 * Client API keys: create, list, change, rotate, delete, and authenticate on the hot path.
 * Lookups are cached in memory for at most KEY_CACHE_MS; changes made through this process
 * take effect at once, changes made by another instance within that bound. A rotated-out
 * secret's grace end is checked at each use, so it stops at once wherever the rotation is known.
 */

import { GatewayError } from "../errors.ts";
import { ACCESS_TOKEN_PREFIX, newApiKeySecret, sha256Hex, timeOrderedId } from "../util/ids.ts";
import { isStoreUnavailable } from "../kv/store_health.ts";
import { kvKeys } from "../kv/kv_keys.ts";
import { kvListOptions } from "../kv/list_options.ts";
import { isKvLocked, withKvRetry } from "../kv/kv_retry.ts";
import { type Ledger, walletOf } from "../billing/ledger.ts";
import type { AccountStore } from "../accounts/account_store.ts";
import type { AccountRecord } from "../accounts/account_schema.ts";
import { upgradedAccountId } from "./accounts_upgrade.ts";
import {
  type KeyInput,
  type keyPatchSchema,
  type KeyRecord,
  type KeyUsage,
  type PreviousSecret,
  publicKey,
} from "./key_schema.ts";
import {
  type KeyListQuery,
  matchesKeyFilter,
  pageOfSorted,
  type SortedKey,
  sortKeys,
} from "./key_list.ts";
import { sentFields } from "../util/patch_schema.ts";
import { SecretHashes } from "./secret_hashes.ts";
import type { z } from "zod";
import type { KvBackend } from "../kv/kv_backend.ts";

export const KEY_CACHE_MS = 5_000;
const NEGATIVE_CACHE_MS = 1_000;
const CACHE_LIMIT = 100_000;
/** Last use is written at most this often per key and instance. */
export const LAST_USED_RESOLUTION_MS = 60_000;
/** How long a rotation made under an Idempotency-Key is replayed (and its secret kept sealed). */
export const ROTATION_IDEMPOTENCY_MS = 24 * 3600_000;

/** Seals short secrets before they reach KV (the gateway's SecretBox). */
export interface SecretSealer {
  seal(plain: string): Promise<string>;
  open(sealed: string): Promise<string>;
}

/** A rotation kept for its Idempotency-Key: the answer, its secret sealed. */
interface StoredRotation {
  request_digest: string;
  sealed_key: string;
  answer: Record<string, unknown>;
}

/** What a key store needs besides KV and the ledger. */
export interface KeyStoreOptions {
  /** Seals the secret of an idempotent rotation for its replay window. */
  sealer?: SecretSealer;
  /** Keeps background work (last-use writes) alive until shutdown. */
  track?: (work: Promise<unknown>) => void;
  /** The accounts keys belong to (their group, limit, wallet and suspension). */
  accounts?: AccountStore;
}

/** The fields of a key that are its account's: shown from, and changed on, the account. */
const ACCOUNT_FIELDS = ["group", "credit_limit", "unlimited"] as const;

/** `record` with its account's group, limit and wallet, as billing and routing must see it. */
export function withAccount(record: KeyRecord, account: AccountRecord | null): KeyRecord {
  if (!account) return record;
  return {
    ...record,
    group: account.group,
    credit_limit: account.credit_limit,
    unlimited: account.unlimited,
    wallet_id: account.wallet_id,
  };
}

interface CachedLookup {
  record: KeyRecord | null;
  until: number;
}

/** Stores keys as SHA-256 hashes and resolves presented secrets to key records. */
export class KeyStore {
  #kv: KvBackend;
  #ledger: Ledger;
  #cache = new Map<string, CachedLookup>();
  #hashes = new SecretHashes();
  #options: KeyStoreOptions;
  /** When this instance last wrote each key's last use. */
  #lastUseWritten = new Map<string, number>();

  constructor(kv: KvBackend, ledger: Ledger, options: KeyStoreOptions = {}) {
    this.#kv = kv;
    this.#ledger = ledger;
    this.#options = options;
  }

  /** Period spend, last use and shortfall of `ids`, read in batches of 10. */
  async #usage(ids: string[]): Promise<Map<string, KeyUsage>> {
    const spend = await this.#ledger.periodSpend(ids);
    const lastUsed = await this.#lastUsed(ids);
    const shortfalls = await this.#ledger.shortfalls(ids);
    return new Map(ids.map((id) => {
      const at = lastUsed.get(id);
      return [id, {
        spend: spend.get(id)!,
        last_used_at: at ? new Date(at).toISOString() : null,
        shortfall: shortfalls.get(id) ?? 0,
      }];
    }));
  }

  async #lastUsed(ids: string[]): Promise<Map<string, number>> {
    const result = new Map<string, number>();
    for (let i = 0; i < ids.length; i += 10) {
      const slice = ids.slice(i, i + 10);
      const found = await this.#kv.getMany<number[]>(slice.map((id) => kvKeys.keyLastUsed(id)));
      found.forEach((entry, index) => {
        if (entry.value !== null) result.set(slice[index], entry.value);
      });
    }
    return result;
  }

  /** Public views of `records` with balances and usage. */
  async #views(records: KeyRecord[]) {
    const ids = records.map((record) => record.id);
    const accounts = await this.#accountsOf(records);
    const shown = records.map((record) =>
      withAccount(record, record.account_id ? accounts.get(record.account_id) ?? null : null)
    );
    const balances = await this.#ledger.balances(shown.map(walletOf));
    const usage = await this.#usage(ids);
    return shown.map((record) =>
      publicKey(record, balances.get(walletOf(record)) ?? 0, usage.get(record.id))
    );
  }

  async #accountsOf(records: KeyRecord[]): Promise<Map<string, AccountRecord>> {
    const ids = [...new Set(records.flatMap((record) => record.account_id ?? []))];
    const result = new Map<string, AccountRecord>();
    for (let i = 0; i < ids.length; i += 10) {
      const found = await this.#kv.getMany<AccountRecord[]>(
        ids.slice(i, i + 10).map((id) => kvKeys.account(id)),
      );
      for (const entry of found) if (entry.value) result.set(entry.value.id, entry.value);
    }
    return result;
  }

  /**
   * Notes a use of key `id` off the request path: one KV write per key per minute on this
   * instance, so `last_used_at` is exact to a minute and a busy key costs no write per request.
   */
  #noteUse(id: string, now: number): void {
    if (now - (this.#lastUseWritten.get(id) ?? 0) < LAST_USED_RESOLUTION_MS) return;
    if (this.#lastUseWritten.size >= CACHE_LIMIT) this.#lastUseWritten.clear();
    this.#lastUseWritten.set(id, now);
    const write = withKvRetry(() => this.#kv.set(kvKeys.keyLastUsed(id), now)).catch(() => {});
    this.#options.track?.(write);
  }

  /**
   * Creates a key; the secret is in the answer only. In `account_id`'s account, or else in an
   * account of its own made with the key's name, group, limit and opening balance (a credit).
   */
  async create(input: KeyInput & { account_id?: string; created_by?: string | null }) {
    const secret = newApiKeySecret();
    const hash = await sha256Hex(secret);
    const now = new Date().toISOString();
    const { balance, account_id, created_by, ...fields } = input;
    const id = timeOrderedId("key");
    const accounts = this.#accounts();
    const account = account_id
      ? await withKvRetry(() => accounts.record(account_id)).catch((error) => {
        if (error instanceof GatewayError && error.status === 404) {
          throw new GatewayError(
            "invalid_request",
            400,
            `account_id '${account_id}' names no account`,
            { param: "account_id" },
          );
        }
        throw error;
      })
      : await accounts.create({
        name: fields.name,
        group: fields.group,
        credit_limit: fields.credit_limit,
        unlimited: fields.unlimited,
        enabled: true,
        balance,
      }, { id: upgradedAccountId(id), walletId: id });
    const record: KeyRecord = {
      id,
      account_id: account.id,
      wallet_id: account.wallet_id,
      ...(created_by && { created_by }),
      ...fields,
      group: account.group,
      credit_limit: account.credit_limit,
      unlimited: account.unlimited,
      prefix: secret.slice(0, 10),
      hash,
      created_at: now,
      updated_at: now,
    };
    const result = await withKvRetry(() =>
      this.#kv.atomic()
        .check({ key: kvKeys.apiKey(record.id), versionstamp: null })
        .check({ key: kvKeys.apiKeyByHash(hash), versionstamp: null })
        .set(kvKeys.apiKey(record.id), record)
        .set(kvKeys.apiKeyByHash(hash), record.id)
        .set(kvKeys.accountKey(account.id, record.id), true)
        .commit()
    );
    if (!result.ok) throw new GatewayError("conflict", 409, "Key id collision; retry");
    // Two processes on one KV file: a read may meet SQLite's lock; the key is made, so read again.
    const [view] = await withKvRetry(() => this.#views([record]));
    return { ...view, key: secret };
  }

  /** `record` with its account's group and limit (the account read through its cache). */
  async #withAccount(record: KeyRecord): Promise<KeyRecord> {
    const account = record.account_id
      ? await this.#options.accounts?.cached(record.account_id) ?? null
      : null;
    return withAccount(record, account);
  }

  #accounts(): AccountStore {
    if (!this.#options.accounts) throw new Error("the key store was made without accounts");
    return this.#options.accounts;
  }

  async #record(id: string): Promise<Deno.KvEntryMaybe<KeyRecord>> {
    const entry = await this.#kv.get<KeyRecord>(kvKeys.apiKey(id));
    if (!entry.value) throw new GatewayError("key_not_found", 404, `No key has the id '${id}'`);
    return entry;
  }

  /** Views of the keys `ids` that exist, in that order. */
  async views(ids: string[]) {
    const records: KeyRecord[] = [];
    for (let i = 0; i < ids.length; i += 10) {
      const found = await this.#kv.getMany<KeyRecord[]>(
        ids.slice(i, i + 10).map((id) => kvKeys.apiKey(id)),
      );
      for (const entry of found) if (entry.value) records.push(entry.value);
    }
    return await this.#views(records);
  }

  async get(id: string) {
    // Reads only: one that meets SQLite's lock (two processes on one file) is read again.
    return await withKvRetry(async () => {
      const entry = await this.#record(id);
      return (await this.#views([entry.value!]))[0];
    });
  }

  /**
   * Keys that pass the query's filters, newest first unless `order` is `asc`; or sorted by
   * today's spend or last use, which reads every matching key (see docs/admin-api.md).
   */
  async list(query: KeyListQuery) {
    const { limit } = query;
    const sort = query.sort ?? "created";
    if (sort !== "created") return this.#listSorted(query, sort);
    // KV pages in id order; filters skip keys, so read on until the page is full.
    const iterator = this.#kv.list<KeyRecord>(
      { prefix: kvKeys.apiKeys() },
      { ...kvListOptions(query), limit: undefined, batchSize: Math.min(500, limit * 2) },
    );
    const records: KeyRecord[] = [];
    for await (const entry of iterator) {
      if (!matchesKeyFilter(await this.#withAccount(entry.value), query)) continue;
      records.push(entry.value);
      if (records.length === limit) break;
    }
    return {
      data: await this.#views(records),
      cursor: records.length === limit ? iterator.cursor : null,
    };
  }

  async #listSorted(query: KeyListQuery, sort: "spend" | "last_used") {
    const records = new Map<string, KeyRecord>();
    for await (const entry of this.#kv.list<KeyRecord>({ prefix: kvKeys.apiKeys() })) {
      if (matchesKeyFilter(await this.#withAccount(entry.value), query)) {
        records.set(entry.value.id, entry.value);
      }
    }
    const ids = [...records.keys()];
    const values = sort === "spend"
      ? new Map([...await this.#ledger.periodSpend(ids)].map(([id, spend]) => [id, spend.day]))
      : await this.#lastUsed(ids);
    const rows: SortedKey[] = ids.map((id) => ({ id, value: values.get(id) ?? 0 }));
    const { page, cursor } = pageOfSorted(sortKeys(rows, query.order), query);
    return { data: await this.#views(page.map((row) => records.get(row.id)!)), cursor };
  }

  /**
   * Changes the fields `patch` names. A key's group, credit limit and unlimited are its
   * account's: changing them changes the account, for all of its keys.
   */
  async update(id: string, patch: z.infer<typeof keyPatchSchema>) {
    const sent = sentFields(patch);
    const accountChanges = Object.fromEntries(
      ACCOUNT_FIELDS.filter((field) => field in sent).map((field) => [field, sent[field]]),
    );
    const current = (await this.#record(id)).value!;
    if (Object.keys(accountChanges).length && current.account_id) {
      await this.#accounts().update(current.account_id, accountChanges);
    }
    // The read is retried with the commit: a locked read is as passing as a locked commit.
    const record = await withKvRetry(async () => {
      const entry = await this.#record(id);
      const record: KeyRecord = {
        ...entry.value!,
        ...sent,
        updated_at: new Date().toISOString(),
      };
      const result = await this.#kv.atomic().check(entry).set(kvKeys.apiKey(id), record).commit();
      if (!result.ok) throw new GatewayError("conflict", 409, "The key changed meanwhile; retry");
      return record;
    });
    this.#cache.delete(record.hash);
    if (record.previous_secret) this.#cache.delete(record.previous_secret.hash);
    return (await this.#views([record]))[0];
  }

  /**
   * Gives key `id` a new secret, returned here only; the key's id, balance, ledger and settings
   * stay. The old secret works for `graceSeconds` more (0: not at all); a rotation while an
   * earlier grace runs ends that grace at once. Under `idempotencyKey`, repeats of the same
   * rotation (also concurrent ones) answer the first one's secret, kept sealed for
   * ROTATION_IDEMPOTENCY_MS; a different rotation under the same key is 409.
   */
  rotate(
    id: string,
    options: { graceSeconds: number; idempotencyKey?: string },
  ): Promise<Record<string, unknown>> {
    return withKvRetry(() => this.#rotate(id, options));
  }

  async #rotate(
    id: string,
    options: { graceSeconds: number; idempotencyKey?: string },
  ): Promise<Record<string, unknown>> {
    const { graceSeconds, idempotencyKey } = options;
    const sealer = this.#options.sealer;
    if (idempotencyKey !== undefined && !sealer) {
      throw new GatewayError("internal_error", 500, "Idempotent rotation needs a secret box");
    }
    const digest = idempotencyKey === undefined ? undefined : await sha256Hex(idempotencyKey);
    const requestDigest = await sha256Hex(JSON.stringify({ grace_seconds: graceSeconds }));
    const rotationKey = digest === undefined ? undefined : kvKeys.keyRotation(id, digest);
    for (let attempt = 0; attempt < 10; attempt++) {
      if (rotationKey) {
        const replay = await this.#replayedRotation(rotationKey, requestDigest);
        if (replay) return replay;
      }
      const entry = await this.#record(id);
      const old = entry.value!;
      const secret = newApiKeySecret();
      const hash = await sha256Hex(secret);
      const now = Date.now();
      const previous: PreviousSecret | null = graceSeconds > 0
        ? {
          prefix: old.prefix,
          hash: old.hash,
          expires_at: new Date(now + graceSeconds * 1000).toISOString(),
        }
        : null;
      const record: KeyRecord = {
        ...old,
        prefix: secret.slice(0, 10),
        hash,
        previous_secret: previous,
        rotated_at: new Date(now).toISOString(),
        updated_at: new Date(now).toISOString(),
      };
      const answer = { ...(await this.#views([record]))[0], key: secret };
      const atomic = this.#kv.atomic()
        .check(entry)
        .check({ key: kvKeys.apiKeyByHash(hash), versionstamp: null })
        .set(kvKeys.apiKey(id), record)
        .set(kvKeys.apiKeyByHash(hash), id);
      // The old hash stays indexed through its grace (KV drops it a minute after; the grace
      // end itself is checked at each use); an earlier rotation's old secret ends now.
      if (previous) {
        atomic.set(kvKeys.apiKeyByHash(old.hash), id, { expireIn: graceSeconds * 1000 + 60_000 });
      } else atomic.delete(kvKeys.apiKeyByHash(old.hash));
      if (old.previous_secret) atomic.delete(kvKeys.apiKeyByHash(old.previous_secret.hash));
      if (rotationKey) {
        const { key: _secret, ...publicAnswer } = answer;
        const stored: StoredRotation = {
          request_digest: requestDigest,
          sealed_key: await sealer!.seal(secret),
          answer: publicAnswer,
        };
        atomic.check({ key: rotationKey, versionstamp: null })
          .set(rotationKey, stored, { expireIn: ROTATION_IDEMPOTENCY_MS });
      }
      // kv-locked: two processes on one local KV file: a passing conflict, as in the ledger.
      const committed = await atomic.commit().catch((error) => {
        if (isKvLocked(error)) return { ok: false };
        throw error;
      });
      if (!committed.ok) continue;
      for (const stale of [old.hash, old.previous_secret?.hash]) {
        if (stale) this.#cache.delete(stale);
      }
      return answer;
    }
    throw new GatewayError("conflict", 409, "The key changed meanwhile; retry the rotation");
  }

  /** The rotation stored under an Idempotency-Key, answered again; 409 for another request. */
  async #replayedRotation(
    rotationKey: Deno.KvKey,
    requestDigest: string,
  ): Promise<Record<string, unknown> | null> {
    const stored = (await this.#kv.get<StoredRotation>(rotationKey)).value;
    if (!stored) return null;
    if (stored.request_digest !== requestDigest) {
      throw new GatewayError(
        "idempotency_key_reused",
        409,
        "This Idempotency-Key was already used for a rotation with another grace_seconds; " +
          "send a new key for a new rotation",
        { param: "Idempotency-Key" },
      );
    }
    return { ...stored.answer, key: await this.#options.sealer!.open(stored.sealed_key) };
  }

  /** Deletes the key; its balance and ledger stay for the record. */
  async delete(id: string): Promise<void> {
    const record = await withKvRetry(async () => {
      const entry = await this.#record(id);
      const previous = entry.value!.previous_secret;
      const atomic = this.#kv.atomic().check(entry)
        .delete(kvKeys.apiKey(id))
        .delete(kvKeys.apiKeyByHash(entry.value!.hash));
      if (entry.value!.account_id) atomic.delete(kvKeys.accountKey(entry.value!.account_id, id));
      if (previous) atomic.delete(kvKeys.apiKeyByHash(previous.hash));
      await atomic.commit();
      return entry.value!;
    });
    this.#cache.delete(record.hash);
    if (record.previous_secret) this.#cache.delete(record.previous_secret.hash);
  }

  /** Resolves a presented secret to its usable key record, or throws the matching 401/403. */
  async authenticate(secret: string): Promise<KeyRecord> {
    if (secret.startsWith(ACCESS_TOKEN_PREFIX)) {
      throw new GatewayError(
        "invalid_api_key",
        401,
        "This is a personal access token (gwpat-…): it works only on the account API " +
          "(/v1/account); model requests take an API key (sk-gw-…)",
      );
    }
    const hash = await this.#hashes.hashOf(secret);
    const now = Date.now();
    let cached = this.#cache.get(hash);
    if (!cached || cached.until < now) {
      try {
        const id = await this.#kv.get<string>(kvKeys.apiKeyByHash(hash));
        const record = id.value
          ? (await this.#kv.get<KeyRecord>(kvKeys.apiKey(id.value))).value
          : null;
        cached = { record, until: now + (record ? KEY_CACHE_MS : NEGATIVE_CACHE_MS) };
        if (this.#cache.size >= CACHE_LIMIT) this.#cache.clear();
        this.#cache.set(hash, cached);
      } catch (error) {
        // With the store unreachable, the last record read stands (the outage rules bound what
        // its requests may spend); a key never read is refused with the store's 503.
        if (!cached?.record || !isStoreUnavailable(error)) throw error;
        cached.until = now + KEY_CACHE_MS;
      }
    }
    const record = cached.record;
    // A rotated-out secret finds its key through the old hash until its grace ends.
    const previous = record?.previous_secret;
    const current = record?.hash === hash ||
      (previous?.hash === hash && Date.parse(previous.expires_at) > now);
    if (!record || !current) {
      throw new GatewayError(
        "invalid_api_key",
        401,
        "The API key is not valid; check it or create a new one",
      );
    }
    if (!record.enabled) {
      throw new GatewayError("key_disabled", 401, `The API key '${record.prefix}…' is disabled`);
    }
    if (record.expires_at && Date.parse(record.expires_at) <= now) {
      throw new GatewayError(
        "key_expired",
        401,
        `The API key '${record.prefix}…' expired at ${record.expires_at}`,
      );
    }
    const account = record.account_id
      ? await this.#options.accounts?.cached(record.account_id, now) ?? null
      : null;
    if (account && !account.enabled) {
      throw new GatewayError(
        "account_disabled",
        403,
        `The account of API key '${record.prefix}…' is suspended; its keys are refused until ` +
          "the operator resumes it",
      );
    }
    this.#hashes.remember(secret, hash);
    this.#noteUse(record.id, now);
    return withAccount(record, account);
  }
}
