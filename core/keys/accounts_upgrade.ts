/**
 * The upgrade to accounts, once per KV: every key stored before accounts becomes the only key of
 * an account of its own, which takes over the key's wallet (balance and ledger stay where they
 * are, under the key's id, so Σ entries = balance holds without moving a single entry), its
 * group and its credit limit. One atomic commit per key, with an account id derived from the
 * key's: several instances may run it at once, and a process killed half-way resumes.
 */

import { kvKeys } from "../kv/kv_keys.ts";
import { withKvRetry } from "../kv/kv_retry.ts";
import type { KvBackend } from "../kv/kv_backend.ts";
import type { KeyRecord } from "./key_schema.ts";
import type { AccountRecord } from "../accounts/account_schema.ts";

/** The id of the account of its own that key `keyId` has (made by the upgrade, or with the key). */
export function upgradedAccountId(keyId: string): string {
  return `acct_${keyId.replace(/^key_/, "")}`;
}

/** The account the upgrade makes of `key`. */
export function accountOfKey(key: KeyRecord, now: string): AccountRecord {
  return {
    id: upgradedAccountId(key.id),
    name: key.name,
    group: key.group,
    credit_limit: key.credit_limit,
    unlimited: key.unlimited,
    enabled: true,
    wallet_id: key.id,
    created_at: key.created_at,
    updated_at: now,
  };
}

/** Gives `keyId` an account unless it has one; true when this call did it. */
async function upgradeKey(kv: KvBackend, keyId: string): Promise<boolean> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const entry = await kv.get<KeyRecord>(kvKeys.apiKey(keyId));
    if (!entry.value || entry.value.account_id) return false;
    const account = accountOfKey(entry.value, new Date().toISOString());
    const key: KeyRecord = {
      ...entry.value,
      account_id: account.id,
      wallet_id: entry.value.wallet_id ?? entry.value.id,
    };
    const result = await withKvRetry(() =>
      kv.atomic()
        .check(entry)
        .check({ key: kvKeys.account(account.id), versionstamp: null })
        .set(kvKeys.account(account.id), account)
        .set(kvKeys.apiKey(key.id), key)
        .set(kvKeys.accountKey(account.id, key.id), true)
        .commit()
    );
    // Otherwise the key changed (or another instance upgraded it) meanwhile: read it again.
    if (result.ok) return true;
  }
  throw new Error(`the upgrade to accounts could not write key ${keyId}; restart to retry`);
}

/** Gives every key without an account one; returns how many it upgraded. */
export async function upgradeToAccounts(kv: KvBackend): Promise<number> {
  if ((await kv.get(kvKeys.accountsUpgraded())).value) return 0;
  let upgraded = 0;
  for await (const listed of kv.list<KeyRecord>({ prefix: kvKeys.apiKeys() })) {
    if (!listed.value.account_id && await upgradeKey(kv, listed.value.id)) upgraded++;
  }
  await withKvRetry(() => kv.set(kvKeys.accountsUpgraded(), new Date().toISOString()));
  return upgraded;
}
