/**
 * Builds, once per KV, the time indexes that admin lists read newest first (ledger entries of
 * every key, tasks) for records written before those indexes existed. New records are indexed
 * in the commit that writes them.
 */

import { kvKeys } from "./kv_keys.ts";
import { withKvRetry } from "./kv_retry.ts";
import type { KvBackend } from "./kv_backend.ts";

const MUTATIONS_PER_COMMIT = 500;

/** Indexes older records unless done before; safe to run on several instances at once. */
export async function buildTimeIndexes(kv: KvBackend): Promise<void> {
  if ((await kv.get(kvKeys.timeIndexesBuilt())).value) return;
  let atomic = kv.atomic();
  let pending = 0;
  const add = async (key: Deno.KvKey, value: string) => {
    atomic.set(key, value);
    if (++pending < MUTATIONS_PER_COMMIT) return;
    await withKvRetry(() => atomic.commit());
    atomic = kv.atomic();
    pending = 0;
  };
  for await (
    const entry of kv.list<{ id: string; key_id: string; wallet_id?: string }>({
      prefix: kvKeys.ledger(),
    })
  ) {
    await add(kvKeys.ledgerByTime(entry.value.id), entry.value.wallet_id ?? entry.value.key_id);
  }
  for await (
    const entry of kv.list<{ id: string; submit_time: number }>({ prefix: kvKeys.tasks() })
  ) {
    await add(kvKeys.taskByTime(entry.value.submit_time * 1000, entry.value.id), entry.value.id);
  }
  atomic.set(kvKeys.timeIndexesBuilt(), new Date().toISOString());
  await withKvRetry(() => atomic.commit());
}
