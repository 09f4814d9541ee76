/**
 * The media expiry sweep: deletes hosted media whose `expires_at` has passed, record first, then
 * its chunks. KV's own expiry is lazy (and on some backends may run late), so without a sweep
 * expired bytes could linger. Idempotent and safe on several instances at once: deleting what
 * another instance deleted is a no-op.
 */

import { kvKeys } from "../kv/kv_keys.ts";
import type { MediaRecord, MediaStore } from "./media_store.ts";
import type { KvBackend } from "../kv/kv_backend.ts";

/** Deletes up to `limit` expired objects; returns how many it deleted. */
export async function sweepExpiredMedia(
  kv: KvBackend,
  media: MediaStore,
  options: { now?: number; limit?: number } = {},
): Promise<number> {
  const now = options.now ?? Date.now();
  const limit = options.limit ?? 1_000;
  let deleted = 0;
  for await (const entry of kv.list<MediaRecord>({ prefix: kvKeys.media("").slice(0, 1) })) {
    if (deleted >= limit) break;
    if (Date.parse(entry.value.expires_at) > now) continue;
    await media.delete(entry.value);
    deleted++;
  }
  return deleted;
}
