/**
 * The request-log retention sweep: deletes request log records older than the retention period.
 * Their ids are time-ordered, so the old ones are one key range, read oldest first. KV's own
 * expiry (each record is written with `expireIn`) is lazy; this makes the period exact within a
 * sweep. Idempotent and safe on several instances at once.
 */

import { kvKeys } from "../kv/kv_keys.ts";
import { idTimeBound } from "../kv/list_options.ts";
import { indexKeysEverOf } from "./request_log_indexes.ts";
import { recordOf } from "./request_log_record.ts";
import { withKvRetry } from "../kv/kv_retry.ts";
import type { KvBackend } from "../kv/kv_backend.ts";

/** Deletes per commit: a record and its index keys (five at most) are deleted together. */
const DELETES_PER_COMMIT = 500;

/** Deletes up to `limit` records written more than `retentionMs` ago; returns how many. */
export async function sweepRequestLog(
  kv: KvBackend,
  retentionMs: number,
  options: { now?: number; limit?: number } = {},
): Promise<number> {
  const cutoff = (options.now ?? Date.now()) - retentionMs;
  const limit = options.limit ?? 10_000;
  const prefix = kvKeys.requestLogs();
  let deleted = 0;
  let atomic = kv.atomic();
  let pending = 0;
  for await (
    const entry of kv.list({
      prefix,
      end: [...prefix, idTimeBound("req", cutoff)],
    }, { limit })
  ) {
    atomic.delete(entry.key);
    const record = recordOf(entry.value);
    const indexes = record?.id ? indexKeysEverOf(record) : [];
    for (const index of indexes) atomic.delete(index);
    deleted++;
    pending += 1 + indexes.length;
    if (pending >= DELETES_PER_COMMIT - 6) {
      await withKvRetry(() => atomic.commit());
      atomic = kv.atomic();
      pending = 0;
    }
  }
  if (pending) await withKvRetry(() => atomic.commit());
  return deleted;
}
