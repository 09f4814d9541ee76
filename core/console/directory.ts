/**
 * What the console shows in place of ids: the names of keys and accounts, read ten at a time (a
 * page's references in a few reads, never one per cell), and short summaries of them for its
 * pickers and its search, read from the stored records alone (no balances, no usage). Read-only.
 */

import { kvKeys } from "../kv/kv_keys.ts";
import type { KvBackend } from "../kv/kv_backend.ts";
import type { KeyRecord } from "../keys/key_schema.ts";
import type { AccountRecord } from "../accounts/account_schema.ts";

/** KV reads at most this many keys in one `getMany`. */
const GET_MANY = 10;

/** A key as a picker or a search result shows it: never its secret, only its visible prefix. */
export interface KeySummary {
  id: string;
  name: string;
  prefix: string;
  account_id: string | null;
  enabled: boolean;
}

export interface AccountSummary {
  id: string;
  name: string;
  enabled: boolean;
}

async function namesOf<T extends { id: string; name: string }>(
  kv: KvBackend,
  ids: Iterable<string>,
  keyOf: (id: string) => Deno.KvKey,
): Promise<Map<string, string>> {
  const wanted = [...new Set(ids)];
  const names = new Map<string, string>();
  for (let i = 0; i < wanted.length; i += GET_MANY) {
    const found = await kv.getMany<T[]>(wanted.slice(i, i + GET_MANY).map(keyOf));
    for (const entry of found) if (entry.value) names.set(entry.value.id, entry.value.name);
  }
  return names;
}

/** The names of the keys `ids` that exist (a deleted key is absent). */
export function keyNames(kv: KvBackend, ids: Iterable<string>): Promise<Map<string, string>> {
  return namesOf<KeyRecord>(kv, ids, kvKeys.apiKey);
}

/** The names of the accounts `ids` that exist (a deleted account is absent). */
export function accountNames(kv: KvBackend, ids: Iterable<string>): Promise<Map<string, string>> {
  return namesOf<AccountRecord>(kv, ids, kvKeys.account);
}

export interface SummaryQuery<T> {
  /** Summaries kept at most. */
  limit: number;
  /** Keeps only the summaries it accepts; all when left out. */
  match?: (summary: T) => boolean;
}

/** Keys in id order (oldest first), `limit` at most, that `match` accepts. */
export async function keySummaries(
  kv: KvBackend,
  { limit, match }: SummaryQuery<KeySummary>,
): Promise<KeySummary[]> {
  const kept: KeySummary[] = [];
  for await (const entry of kv.list<KeyRecord>({ prefix: kvKeys.apiKeys() })) {
    const record = entry.value;
    const summary: KeySummary = {
      id: record.id,
      name: record.name,
      prefix: record.prefix,
      account_id: record.account_id ?? null,
      enabled: record.enabled,
    };
    if (match && !match(summary)) continue;
    kept.push(summary);
    if (kept.length >= limit) break;
  }
  return kept;
}

/** Accounts in id order (oldest first), `limit` at most, that `match` accepts. */
export async function accountSummaries(
  kv: KvBackend,
  { limit, match }: SummaryQuery<AccountSummary>,
): Promise<AccountSummary[]> {
  const kept: AccountSummary[] = [];
  for await (const entry of kv.list<AccountRecord>({ prefix: kvKeys.accounts() })) {
    const { id, name, enabled } = entry.value;
    const summary = { id, name, enabled };
    if (match && !match(summary)) continue;
    kept.push(summary);
    if (kept.length >= limit) break;
  }
  return kept;
}
