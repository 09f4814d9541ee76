/**
 * Self sign-up invite codes: made by the operator, each good for a number of sign-ups until it
 * expires. Only the code's SHA-256 is stored; a use is taken in a commit that checks the count,
 * so concurrent sign-ups never take more uses than the code has.
 */

import { kvKeys } from "../kv/kv_keys.ts";
import { withKvRetry } from "../kv/kv_retry.ts";
import type { KvBackend } from "../kv/kv_backend.ts";
import { randomBase62, sha256Hex, timeOrderedId } from "../util/ids.ts";

interface StoredCode {
  id: string;
  uses_left: number;
  expires_at: number;
  created_at: string;
}

export class SignupCodes {
  #kv: KvBackend;

  constructor(kv: KvBackend) {
    this.#kv = kv;
  }

  /** A new code good for `uses` sign-ups over `ttlMs`; the code is in this answer only. */
  async create(
    { uses, ttlMs }: { uses: number; ttlMs: number },
  ): Promise<{ id: string; code: string; uses: number; expires_at: string }> {
    const code = `signup-${randomBase62(24)}`;
    const stored: StoredCode = {
      id: timeOrderedId("sgc"),
      uses_left: uses,
      expires_at: Date.now() + ttlMs,
      created_at: new Date().toISOString(),
    };
    const key = kvKeys.signupCode(await sha256Hex(code));
    await withKvRetry(() => this.#kv.set(key, stored, { expireIn: ttlMs }));
    return { id: stored.id, code, uses, expires_at: new Date(stored.expires_at).toISOString() };
  }

  /** Takes one use of `code`; false when it is unknown, expired or used up. */
  async use(code: string): Promise<boolean> {
    if (!/^signup-[0-9A-Za-z]{24}$/.test(code.trim())) return false;
    const key = kvKeys.signupCode(await sha256Hex(code.trim()));
    // kv-locked: a conflicting commit fails the check and the loop reads again.
    for (let attempt = 0; attempt < 50; attempt++) {
      const entry = await this.#kv.get<StoredCode>(key);
      const stored = entry.value;
      if (!stored || stored.uses_left < 1 || stored.expires_at <= Date.now()) return false;
      const next = { ...stored, uses_left: stored.uses_left - 1 };
      const expireIn = Math.max(1, stored.expires_at - Date.now());
      const result = await withKvRetry(() =>
        this.#kv.atomic().check(entry).set(key, next, { expireIn }).commit()
      );
      if (result.ok) return true;
    }
    return false;
  }
}
