/**
 * Members and memberships in KV. A member's email is unique (index `member_by_email`, written in
 * the same commit as the member); a membership is kept both ways (`memberships` by member,
 * `account_members` by account) in one commit, so either side lists it. Accounts are opaque ids
 * here: this store never reads the account store.
 *
 * `cachedMember` and `cachedRoleIn` serve the hot path (a personal access token's every use) from
 * memory for at most MEMBER_CACHE_MS; changes made through this store apply to them at once,
 * changes made on another instance within that bound.
 */

import { GatewayError } from "../errors.ts";
import { kvKeys } from "../kv/kv_keys.ts";
import { withKvRetry } from "../kv/kv_retry.ts";
import type { KvBackend } from "../kv/kv_backend.ts";
import { timeOrderedId } from "../util/ids.ts";
import type { MemberRole } from "./member_input.ts";

export interface MemberRecord {
  id: string;
  email: string;
  name: string;
  /** argon2id PHC string (password_hash.ts). */
  password_hash: string;
  /** The TOTP secret sealed with the gateway's secret key, once enrolment is confirmed. */
  totp: { sealed: string; enrolled_at: string } | null;
  /** An enrolment begun and not yet confirmed by a code. */
  totp_pending?: { sealed: string; started_at: string } | null;
  /** SHA-256 of each unused recovery code. */
  recovery_codes: string[];
  created_at: string;
  updated_at: string;
  disabled: boolean;
}

/** What the API and the console show of a member: no hash, no secret. */
export interface MemberView {
  id: string;
  email: string;
  name: string;
  totp_enabled: boolean;
  recovery_codes_left: number;
  created_at: string;
  updated_at: string;
  disabled: boolean;
}

export interface Membership {
  member_id: string;
  account_id: string;
  role: MemberRole;
  created_at: string;
}

export function memberView(record: MemberRecord): MemberView {
  return {
    id: record.id,
    email: record.email,
    name: record.name,
    totp_enabled: record.totp !== null,
    recovery_codes_left: record.recovery_codes.length,
    created_at: record.created_at,
    updated_at: record.updated_at,
    disabled: record.disabled,
  };
}

export const memberNotFound = (id: string) =>
  new GatewayError("member_not_found", 404, `No member has the id '${id}'`);

const membershipNotFound = (memberId: string, accountId: string) =>
  new GatewayError(
    "membership_not_found",
    404,
    `Member '${memberId}' is not a member of account '${accountId}'`,
  );

export const MEMBER_CACHE_MS = 5_000;
const CACHE_LIMIT = 100_000;

interface Cached<T> {
  value: T;
  until: number;
}

const roleCacheKey = (memberId: string, accountId: string) => `${memberId} ${accountId}`;

export class MemberStore {
  #kv: KvBackend;
  #members = new Map<string, Cached<MemberRecord | null>>();
  #roles = new Map<string, Cached<MemberRole | null>>();

  constructor(kv: KvBackend) {
    this.#kv = kv;
  }

  /** Creates a member; 409 `email_taken` when the email already has one. */
  async create(
    input: { email: string; name: string; passwordHash: string },
  ): Promise<MemberRecord> {
    const now = new Date().toISOString();
    const record: MemberRecord = {
      id: timeOrderedId("mem"),
      email: input.email,
      name: input.name,
      password_hash: input.passwordHash,
      totp: null,
      recovery_codes: [],
      created_at: now,
      updated_at: now,
      disabled: false,
    };
    const result = await withKvRetry(() =>
      this.#kv.atomic()
        .check({ key: kvKeys.memberByEmail(record.email), versionstamp: null })
        .set(kvKeys.member(record.id), record)
        .set(kvKeys.memberByEmail(record.email), record.id)
        .commit()
    );
    if (!result.ok) {
      throw new GatewayError("email_taken", 409, "A member with this email exists already", {
        param: "email",
      });
    }
    return record;
  }

  async find(id: string): Promise<MemberRecord | null> {
    return (await this.#kv.get<MemberRecord>(kvKeys.member(id))).value;
  }

  async get(id: string): Promise<MemberRecord> {
    return (await this.find(id)) ?? (() => {
      throw memberNotFound(id);
    })();
  }

  /** The member with this (normalised) email, or null. */
  async byEmail(email: string): Promise<MemberRecord | null> {
    const id = (await this.#kv.get<string>(kvKeys.memberByEmail(email))).value;
    return id ? await this.find(id) : null;
  }

  /**
   * Changes member `id` with `change` (given the current record; it may throw to refuse) and
   * commits only if nobody changed it meanwhile; returns the new record, or null when `change`
   * returned null (nothing to do).
   */
  async update(
    id: string,
    change: (record: MemberRecord) => MemberRecord | null,
  ): Promise<MemberRecord | null> {
    // kv-locked: a conflicting commit fails the check and the loop reads again.
    for (let attempt = 0; attempt < 20; attempt++) {
      const entry = await this.#kv.get<MemberRecord>(kvKeys.member(id));
      if (!entry.value) throw memberNotFound(id);
      const next = change(entry.value);
      if (next === null) return null;
      next.updated_at = new Date().toISOString();
      const result = await withKvRetry(() =>
        this.#kv.atomic().check(entry).set(kvKeys.member(id), next).commit()
      );
      if (result.ok) {
        this.#members.delete(id);
        return next;
      }
    }
    throw new GatewayError("conflict", 409, "The member changed meanwhile; try again");
  }

  async addMembership(memberId: string, accountId: string, role: MemberRole): Promise<Membership> {
    const membership: Membership = {
      member_id: memberId,
      account_id: accountId,
      role,
      created_at: new Date().toISOString(),
    };
    const existing = await this.membership(memberId, accountId);
    if (existing) {
      return existing.role === role ? existing : await this.setRole(memberId, accountId, role);
    }
    await withKvRetry(() =>
      this.#kv.atomic()
        .set(kvKeys.membership(memberId, accountId), membership)
        .set(kvKeys.accountMember(accountId, memberId), membership)
        .commit()
    );
    this.#roles.delete(roleCacheKey(memberId, accountId));
    return membership;
  }

  async membership(memberId: string, accountId: string): Promise<Membership | null> {
    return (await this.#kv.get<Membership>(kvKeys.membership(memberId, accountId))).value;
  }

  async setRole(memberId: string, accountId: string, role: MemberRole): Promise<Membership> {
    const existing = await this.membership(memberId, accountId);
    if (!existing) throw membershipNotFound(memberId, accountId);
    const changed = { ...existing, role };
    await withKvRetry(() =>
      this.#kv.atomic()
        .set(kvKeys.membership(memberId, accountId), changed)
        .set(kvKeys.accountMember(accountId, memberId), changed)
        .commit()
    );
    this.#roles.delete(roleCacheKey(memberId, accountId));
    return changed;
  }

  /** Ends a membership; the keys the member made stay with the account. */
  async removeMembership(memberId: string, accountId: string): Promise<void> {
    if (!(await this.membership(memberId, accountId))) {
      throw membershipNotFound(memberId, accountId);
    }
    await withKvRetry(() =>
      this.#kv.atomic()
        .delete(kvKeys.membership(memberId, accountId))
        .delete(kvKeys.accountMember(accountId, memberId))
        .commit()
    );
    this.#roles.delete(roleCacheKey(memberId, accountId));
  }

  async membershipsOf(memberId: string): Promise<Membership[]> {
    return await this.#listAll(kvKeys.membershipsOf(memberId));
  }

  async membersOf(accountId: string): Promise<Membership[]> {
    return await this.#listAll(kvKeys.accountMembers(accountId));
  }

  async roleIn(memberId: string, accountId: string): Promise<MemberRole | null> {
    return (await this.membership(memberId, accountId))?.role ?? null;
  }

  /** The member for the hot path, from memory when looked up within MEMBER_CACHE_MS. */
  async cachedMember(id: string, now = Date.now()): Promise<MemberRecord | null> {
    return await cachedRead(this.#members, id, now, () => this.find(id));
  }

  /** `roleIn` for the hot path, from memory when looked up within MEMBER_CACHE_MS. */
  async cachedRoleIn(
    memberId: string,
    accountId: string,
    now = Date.now(),
  ): Promise<MemberRole | null> {
    return await cachedRead(
      this.#roles,
      roleCacheKey(memberId, accountId),
      now,
      () => this.roleIn(memberId, accountId),
    );
  }

  async #listAll(prefix: readonly string[]): Promise<Membership[]> {
    const out: Membership[] = [];
    for await (const entry of this.#kv.list<Membership>({ prefix: [...prefix] })) {
      out.push(entry.value);
    }
    return out;
  }
}

async function cachedRead<T>(
  cache: Map<string, Cached<T>>,
  key: string,
  now: number,
  read: () => Promise<T>,
): Promise<T> {
  const hit = cache.get(key);
  if (hit && hit.until >= now) return hit.value;
  const value = await read();
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, { value, until: now + MEMBER_CACHE_MS });
  return value;
}
