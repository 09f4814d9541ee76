/**
 * Console sessions in KV, so they survive restarts and work across instances. The browser's
 * cookie holds a random session id; KV holds only its SHA-256, so reading KV does not give a
 * usable session. A session expires `ttlMs` after sign-in (KV drops it then; reads check too).
 *
 * A session may carry one "flash": a secret to show once (a new key's `sk-gw-…`), sealed with
 * AES-GCM under a key derived from the session id, so KV holds only ciphertext nobody can open
 * without the cookie; taking it deletes it.
 */

import { kvKeys } from "../kv/kv_keys.ts";
import { randomBase62, sha256Hex } from "../util/ids.ts";
import { withKvRetry } from "../kv/kv_retry.ts";
import type { KvBackend } from "../kv/kv_backend.ts";

export const DEFAULT_SESSION_TTL_MS = 12 * 3600_000;

/**
 * Who a session signed in as: the operator (admin token), the holder of one key (a read-only view
 * of that key), or a member (core/members) viewing one of their accounts.
 */
export type ConsoleRole =
  | { kind: "operator" }
  | { kind: "holder"; keyId: string }
  | { kind: "member"; memberId: string; accountId: string };

/** One of a member's sessions as "Settings" lists it. */
export interface MemberSessionInfo {
  label: string;
  created_at: string;
  expires_at: string;
  current: boolean;
}

export interface ConsoleSession {
  /** The secret id from the cookie (never stored). */
  id: string;
  /** A public name of the session for audit records: a prefix of its id's hash. */
  label: string;
  role: ConsoleRole;
  /** The CSRF token every state-changing form of this session carries. */
  csrf: string;
  expiresAt: number;
}

interface StoredSession {
  role: ConsoleRole;
  csrf: string;
  expires_at: number;
  created_at?: number;
  /** The sealed secret and what it belongs to (a key id), shown only on that key's page. */
  flash?: { for: string; iv: string; data: string };
}

const encoder = new TextEncoder();

async function flashKey(sessionId: string): Promise<CryptoKey> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(`flash:${sessionId}`));
  return crypto.subtle.importKey("raw", digest, "AES-GCM", false, ["encrypt", "decrypt"]);
}

/** Creates, reads and ends console sessions. */
export class ConsoleSessionStore {
  #kv: KvBackend;
  readonly ttlMs: number;

  constructor(kv: KvBackend, options: { ttlMs?: number } = {}) {
    this.#kv = kv;
    this.ttlMs = options.ttlMs ?? DEFAULT_SESSION_TTL_MS;
  }

  /** Starts a session for `role`; the returned id goes in the cookie only. */
  async create(role: ConsoleRole, now = Date.now()): Promise<ConsoleSession> {
    const id = randomBase62(43);
    const idHash = await sha256Hex(id);
    const stored: StoredSession = {
      role,
      csrf: randomBase62(32),
      expires_at: now + this.ttlMs,
      created_at: now,
    };
    const atomic = this.#kv.atomic()
      .set(kvKeys.consoleSession(idHash), stored, { expireIn: this.ttlMs });
    if (role.kind === "member") {
      atomic.set(kvKeys.memberSession(role.memberId, idHash), stored.expires_at, {
        expireIn: this.ttlMs,
      });
    }
    await withKvRetry(() => atomic.commit());
    return {
      id,
      label: idHash.slice(0, 16),
      role,
      csrf: stored.csrf,
      expiresAt: stored.expires_at,
    };
  }

  /** The live session with cookie value `id`, or null (unknown, ended or expired). */
  async get(id: string, now = Date.now()): Promise<ConsoleSession | null> {
    if (!/^[0-9A-Za-z]{43}$/.test(id)) return null;
    const idHash = await sha256Hex(id);
    const stored = (await this.#kv.get<StoredSession>(kvKeys.consoleSession(idHash))).value;
    if (!stored || stored.expires_at <= now) return null;
    return {
      id,
      label: idHash.slice(0, 16),
      role: stored.role,
      csrf: stored.csrf,
      expiresAt: stored.expires_at,
    };
  }

  /** Ends the session (sign-out); ending an unknown one does nothing. */
  async delete(id: string): Promise<void> {
    await this.#deleteByHash(await sha256Hex(id));
  }

  async #deleteByHash(idHash: string): Promise<void> {
    const key = kvKeys.consoleSession(idHash);
    const role = (await this.#kv.get<StoredSession>(key)).value?.role;
    const atomic = this.#kv.atomic().delete(key);
    if (role?.kind === "member") atomic.delete(kvKeys.memberSession(role.memberId, idHash));
    await withKvRetry(() => atomic.commit());
  }

  /** Changes the role of session `id` (a member switching accounts); same id, same expiry. */
  async setRole(id: string, role: ConsoleRole): Promise<void> {
    const key = kvKeys.consoleSession(await sha256Hex(id));
    const entry = await this.#kv.get<StoredSession>(key);
    if (!entry.value) return;
    const expireIn = Math.max(1, entry.value.expires_at - Date.now());
    await withKvRetry(() =>
      this.#kv.atomic().check(entry).set(key, { ...entry.value, role }, { expireIn }).commit()
    );
  }

  /** The live sessions of member `memberId`, `currentId`'s marked. */
  async ofMember(memberId: string, currentId?: string): Promise<MemberSessionInfo[]> {
    const currentHash = currentId ? await sha256Hex(currentId) : null;
    const out: MemberSessionInfo[] = [];
    for await (const entry of this.#kv.list({ prefix: [...kvKeys.memberSessions(memberId)] })) {
      const idHash = String(entry.key[2]);
      const stored = (await this.#kv.get<StoredSession>(kvKeys.consoleSession(idHash))).value;
      if (!stored || stored.expires_at <= Date.now()) continue;
      out.push({
        label: idHash.slice(0, 16),
        created_at: new Date(stored.created_at ?? stored.expires_at - this.ttlMs).toISOString(),
        expires_at: new Date(stored.expires_at).toISOString(),
        current: idHash === currentHash,
      });
    }
    return out;
  }

  /** Ends every session of `memberId` but `keepId` (or all when none); returns how many. */
  async endMemberSessions(memberId: string, keepId?: string): Promise<number> {
    const keepHash = keepId ? await sha256Hex(keepId) : null;
    let ended = 0;
    for await (const entry of this.#kv.list({ prefix: [...kvKeys.memberSessions(memberId)] })) {
      const idHash = String(entry.key[2]);
      if (idHash === keepHash) continue;
      await this.#deleteByHash(idHash);
      ended++;
    }
    return ended;
  }

  /** Keeps `secret` (of `owner`, a key id) sealed in session `id` until `takeFlash` reads it. */
  async putFlash(id: string, { owner, secret }: { owner: string; secret: string }): Promise<void> {
    const key = kvKeys.consoleSession(await sha256Hex(id));
    const entry = await this.#kv.get<StoredSession>(key);
    if (!entry.value) return;
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const sealed = await crypto.subtle.encrypt(
      { name: "AES-GCM", iv },
      await flashKey(id),
      encoder.encode(secret),
    );
    const flash = { for: owner, iv: iv.toBase64(), data: new Uint8Array(sealed).toBase64() };
    const expireIn = Math.max(1, entry.value.expires_at - Date.now());
    await withKvRetry(() =>
      this.#kv.atomic().check(entry).set(key, { ...entry.value, flash }, { expireIn }).commit()
    );
  }

  /**
   * The flash of session `id` when it belongs to `owner`, deleted as it is read: a second read
   * gets null. Another owner's flash is left for its own page.
   */
  async takeFlash(id: string, owner: string): Promise<string | null> {
    const key = kvKeys.consoleSession(await sha256Hex(id));
    const entry = await this.#kv.get<StoredSession>(key);
    const flash = entry.value?.flash;
    if (!entry.value || !flash || flash.for !== owner) return null;
    const { flash: _taken, ...rest } = entry.value;
    const expireIn = Math.max(1, entry.value.expires_at - Date.now());
    const result = await withKvRetry(() =>
      this.#kv.atomic().check(entry).set(key, rest, { expireIn }).commit()
    );
    if (!result.ok) return null; // another request took it first
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: Uint8Array.fromBase64(flash.iv) },
      await flashKey(id),
      Uint8Array.fromBase64(flash.data),
    );
    return new TextDecoder().decode(plain);
  }
}
