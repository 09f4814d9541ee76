/**
 * Client API keys: create, list, change, delete, and authenticate on the hot path.
 * Lookups are cached in memory for at most KEY_CACHE_MS; changes made through this process
 * take effect at once, changes made by another instance within that bound.
 */

import { GatewayError } from "../errors.ts";
import { newApiKeySecret, sha256Hex, timeOrderedId } from "../util/ids.ts";
import { kvKeys } from "../kv/kv_keys.ts";
import { kvListOptions, type ListOptions } from "../kv/list_options.ts";
import type { Ledger } from "../billing/ledger.ts";
import { type KeyInput, type keyPatchSchema, type KeyRecord, publicKey } from "./key_schema.ts";
import { sentFields } from "../util/patch_schema.ts";
import type { z } from "zod";

export const KEY_CACHE_MS = 5_000;
const NEGATIVE_CACHE_MS = 1_000;
const CACHE_LIMIT = 100_000;

interface CachedLookup {
  record: KeyRecord | null;
  until: number;
}

/** Stores keys as SHA-256 hashes and resolves presented secrets to key records. */
export class KeyStore {
  #kv: Deno.Kv;
  #ledger: Ledger;
  #cache = new Map<string, CachedLookup>();

  constructor(kv: Deno.Kv, ledger: Ledger) {
    this.#kv = kv;
    this.#ledger = ledger;
  }

  /** Creates a key; the secret is in the answer only. An opening balance is a credit entry. */
  async create(input: KeyInput) {
    const secret = newApiKeySecret();
    const hash = await sha256Hex(secret);
    const now = new Date().toISOString();
    const { balance, ...fields } = input;
    const record: KeyRecord = {
      id: timeOrderedId("key"),
      ...fields,
      prefix: secret.slice(0, 10),
      hash,
      created_at: now,
      updated_at: now,
    };
    const result = await this.#kv.atomic()
      .check({ key: kvKeys.apiKey(record.id), versionstamp: null })
      .check({ key: kvKeys.apiKeyByHash(hash), versionstamp: null })
      .set(kvKeys.apiKey(record.id), record)
      .set(kvKeys.apiKeyByHash(hash), record.id)
      .commit();
    if (!result.ok) throw new GatewayError("conflict", 409, "Key id collision; retry");
    if (balance > 0) await this.#ledger.credit(record.id, balance, { note: "opening balance" });
    return { ...publicKey(record, balance), key: secret };
  }

  async #record(id: string): Promise<Deno.KvEntryMaybe<KeyRecord>> {
    const entry = await this.#kv.get<KeyRecord>(kvKeys.apiKey(id));
    if (!entry.value) throw new GatewayError("key_not_found", 404, `No key has the id '${id}'`);
    return entry;
  }

  async get(id: string) {
    const entry = await this.#record(id);
    return publicKey(entry.value!, await this.#ledger.balance(id));
  }

  /** Keys, newest first unless `options.order` is `asc`. */
  async list(options: ListOptions) {
    const { limit } = options;
    const iterator = this.#kv.list<KeyRecord>({ prefix: kvKeys.apiKeys() }, kvListOptions(options));
    const records: KeyRecord[] = [];
    for await (const entry of iterator) records.push(entry.value);
    const balances = await this.#ledger.balances(records.map((record) => record.id));
    return {
      data: records.map((record) => publicKey(record, balances.get(record.id) ?? 0)),
      cursor: records.length === limit ? iterator.cursor : null,
    };
  }

  async update(id: string, patch: z.infer<typeof keyPatchSchema>) {
    const entry = await this.#record(id);
    const record: KeyRecord = {
      ...entry.value!,
      ...sentFields(patch),
      updated_at: new Date().toISOString(),
    };
    const result = await this.#kv.atomic().check(entry).set(kvKeys.apiKey(id), record).commit();
    if (!result.ok) throw new GatewayError("conflict", 409, "The key changed meanwhile; retry");
    this.#cache.delete(record.hash);
    return publicKey(record, await this.#ledger.balance(id));
  }

  /** Deletes the key; its balance and ledger stay for the record. */
  async delete(id: string): Promise<void> {
    const entry = await this.#record(id);
    await this.#kv.atomic().check(entry)
      .delete(kvKeys.apiKey(id))
      .delete(kvKeys.apiKeyByHash(entry.value!.hash))
      .commit();
    this.#cache.delete(entry.value!.hash);
  }

  /** Resolves a presented secret to its usable key record, or throws the matching 401/403. */
  async authenticate(secret: string): Promise<KeyRecord> {
    const hash = await sha256Hex(secret);
    const now = Date.now();
    let cached = this.#cache.get(hash);
    if (!cached || cached.until < now) {
      const id = await this.#kv.get<string>(kvKeys.apiKeyByHash(hash));
      const record = id.value
        ? (await this.#kv.get<KeyRecord>(kvKeys.apiKey(id.value))).value
        : null;
      cached = { record, until: now + (record ? KEY_CACHE_MS : NEGATIVE_CACHE_MS) };
      if (this.#cache.size >= CACHE_LIMIT) this.#cache.clear();
      this.#cache.set(hash, cached);
    }
    const record = cached.record;
    if (!record) {
      throw new GatewayError(
        "invalid_api_key",
        401,
        "The API key is not valid; check it or create a new one",
      );
    }
    if (!record.enabled) {
      throw new GatewayError("key_disabled", 403, `The API key '${record.prefix}…' is disabled`);
    }
    if (record.expires_at && Date.parse(record.expires_at) <= now) {
      throw new GatewayError(
        "key_expired",
        403,
        `The API key '${record.prefix}…' expired at ${record.expires_at}`,
      );
    }
    return record;
  }
}
