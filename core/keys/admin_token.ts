/**
 * The admin credential. GATEWAY_ADMIN_TOKEN when set; otherwise a token generated on first boot,
 * printed once, and kept only as its hash in KV.
 */

import { constantTimeEqual, randomBase62, sha256Hex } from "../util/ids.ts";
import { kvKeys } from "../kv/kv_keys.ts";
import { withKvRetry } from "../kv/kv_retry.ts";
import type { KvBackend } from "../kv/kv_backend.ts";

/** The admin token's hash, and the new token itself when this boot generated it. */
export async function loadAdminToken(
  kv: KvBackend,
  fromEnv?: string,
): Promise<{ hash: string; generated?: string }> {
  if (fromEnv) return { hash: await sha256Hex(fromEnv) };
  const stored = await kv.get<string>(kvKeys.adminTokenHash());
  if (stored.value) return { hash: stored.value };
  const token = `gw-admin-${randomBase62(40)}`;
  const hash = await sha256Hex(token);
  const result = await withKvRetry(() =>
    kv.atomic().check(stored).set(kvKeys.adminTokenHash(), hash).commit()
  );
  if (!result.ok) return loadAdminToken(kv);
  return { hash, generated: token };
}

/** Whether `presented` is the admin token whose hash is `hash`. */
export async function isAdminToken(presented: string, hash: string): Promise<boolean> {
  return constantTimeEqual(await sha256Hex(presented), hash);
}
