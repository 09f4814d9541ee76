/**
 * Accounts: create, list, change, credit; and the cached lookup the hot path uses to apply an
 * account's group, limit and suspension to its keys. Lookups are cached for at most
 * ACCOUNT_CACHE_MS (the key cache's bound); changes made through this process apply at once.
 */

import { GatewayError } from "../errors.ts";
import { timeOrderedId } from "../util/ids.ts";
import { isStoreUnavailable } from "../kv/store_health.ts";
import { kvKeys } from "../kv/kv_keys.ts";
import { withKvRetry } from "../kv/kv_retry.ts";
import type { KvBackend } from "../kv/kv_backend.ts";
import type { Ledger } from "../billing/ledger.ts";
import { sentFields } from "../util/patch_schema.ts";
import {
  type AccountInput,
  type AccountPatch,
  type AccountRecord,
  type AccountUsage,
  type PublicAccount,
  publicAccount,
} from "./account_schema.ts";
import { type AccountListQuery, pageOfAccounts } from "./account_list.ts";

export const ACCOUNT_CACHE_MS = 5_000;
const CACHE_LIMIT = 100_000;

export class AccountStore {
  #kv: KvBackend;
  #ledger: Ledger;
  #cache = new Map<string, { record: AccountRecord | null; until: number }>();

  constructor(kv: KvBackend, ledger: Ledger) {
    this.#kv = kv;
    this.#ledger = ledger;
  }

  /**
   * Creates an account; an opening balance is a credit entry. `id` and `walletId` are for a
   * key made without an account: the account of its own is named after it and its wallet is
   * under the key's id, as every key's was before accounts.
   */
  async create(
    input: AccountInput,
    options: { id?: string; walletId?: string; note?: string } = {},
  ): Promise<AccountRecord> {
    const { balance, ...fields } = input;
    const now = new Date().toISOString();
    const id = options.id ?? timeOrderedId("acct");
    const record: AccountRecord = {
      id,
      ...fields,
      wallet_id: options.walletId ?? id,
      created_at: now,
      updated_at: now,
    };
    const result = await withKvRetry(() =>
      this.#kv.atomic()
        .check({ key: kvKeys.account(id), versionstamp: null })
        .set(kvKeys.account(id), record)
        .commit()
    );
    if (!result.ok) throw new GatewayError("conflict", 409, "Account id collision; retry");
    if (balance > 0) {
      await this.#ledger.credit(record.wallet_id, balance, {
        note: options.note ?? "opening balance",
      });
    }
    return record;
  }

  /** The stored account, or 404 `account_not_found`. */
  async record(id: string): Promise<AccountRecord> {
    const entry = await this.#kv.get<AccountRecord>(kvKeys.account(id));
    if (!entry.value) {
      throw new GatewayError("account_not_found", 404, `No account has the id '${id}'`);
    }
    return entry.value;
  }

  /** The account for the hot path, from memory when looked up within ACCOUNT_CACHE_MS. */
  async cached(id: string, now = Date.now()): Promise<AccountRecord | null> {
    const hit = this.#cache.get(id);
    if (hit && hit.until >= now) return hit.record;
    let record: AccountRecord | null;
    try {
      record = (await this.#kv.get<AccountRecord>(kvKeys.account(id))).value;
    } catch (error) {
      // With the store unreachable, the last record read stands (see KeyStore.authenticate).
      if (hit?.record && isStoreUnavailable(error)) {
        hit.until = now + ACCOUNT_CACHE_MS;
        return hit.record;
      }
      throw error;
    }
    if (this.#cache.size >= CACHE_LIMIT) this.#cache.clear();
    this.#cache.set(id, { record, until: now + ACCOUNT_CACHE_MS });
    return record;
  }

  /** The admin view: the account with its balance, keys and spend. */
  async get(id: string): Promise<PublicAccount> {
    const record = await withKvRetry(() => this.record(id));
    return (await withKvRetry(() => this.#views([record])))[0];
  }

  async update(id: string, patch: AccountPatch): Promise<PublicAccount> {
    const changes = sentFields(patch);
    const record = await withKvRetry(async () => {
      const entry = await this.#kv.get<AccountRecord>(kvKeys.account(id));
      if (!entry.value) {
        throw new GatewayError("account_not_found", 404, `No account has the id '${id}'`);
      }
      const next = { ...entry.value, ...changes, updated_at: new Date().toISOString() };
      const result = await this.#kv.atomic().check(entry).set(kvKeys.account(id), next).commit();
      if (!result.ok) throw new GatewayError("conflict", 409, "The account changed; retry");
      return next;
    });
    this.#cache.delete(id);
    return (await withKvRetry(() => this.#views([record])))[0];
  }

  /** Adds (or takes) money to the account's wallet, audited by the caller. */
  async credit(id: string, amount: number, options: { note?: string; ref?: string } = {}) {
    const record = await this.record(id);
    return await this.#ledger.credit(record.wallet_id, amount, options);
  }

  /** The ids of the account's keys, oldest first. */
  async keyIdsOf(accountId: string): Promise<string[]> {
    const ids: string[] = [];
    for await (const entry of this.#kv.list({ prefix: kvKeys.accountKeys(accountId) })) {
      ids.push(String(entry.key[2]));
    }
    return ids;
  }

  /** Accounts matching the query, sorted and paged (see account_list.ts). */
  async list(query: AccountListQuery) {
    const records: AccountRecord[] = [];
    for await (const entry of this.#kv.list<AccountRecord>({ prefix: kvKeys.accounts() })) {
      records.push(entry.value);
    }
    const views = await this.#views(records);
    return pageOfAccounts(views, query);
  }

  async #views(records: AccountRecord[]): Promise<PublicAccount[]> {
    const balances = await this.#ledger.balances(records.map((record) => record.wallet_id));
    const usage = await Promise.all(records.map((record) => this.#usage(record.id)));
    return records.map((record, index) =>
      publicAccount(record, balances.get(record.wallet_id) ?? 0, usage[index])
    );
  }

  async #usage(accountId: string): Promise<AccountUsage> {
    const keyIds = await this.keyIdsOf(accountId);
    const spend = await this.#ledger.periodSpend(keyIds);
    let lastUsed = 0;
    for (let i = 0; i < keyIds.length; i += 10) {
      const found = await this.#kv.getMany<number[]>(
        keyIds.slice(i, i + 10).map((id) => kvKeys.keyLastUsed(id)),
      );
      for (const entry of found) lastUsed = Math.max(lastUsed, entry.value ?? 0);
    }
    let today = 0;
    let month = 0;
    for (const periods of spend.values()) {
      today += periods.day;
      month += periods.month;
    }
    return {
      keys: keyIds.length,
      spend_today: today,
      spend_month: month,
      last_used_at: lastUsed ? new Date(lastUsed).toISOString() : null,
    };
  }
}
