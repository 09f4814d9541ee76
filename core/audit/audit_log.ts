/**
 * The audit log: one record per admin change (admin API, config file at boot, console), kept in
 * KV for a retention period and listed newest first with filters. Records hold public views only
 * (see core/util/without_secrets.ts), never secrets.
 */

import { kvKeys } from "../kv/kv_keys.ts";
import {
  idTimeBound,
  kvListOptions,
  type ListOptions,
  timeRangeSelector,
} from "../kv/list_options.ts";
import { timeOrderedId } from "../util/ids.ts";
import { withKvRetry } from "../kv/kv_retry.ts";
import type { KvBackend } from "../kv/kv_backend.ts";

/**
 * Who made a change: `admin_token`, `console:<session id>`, `config:<file>`, or
 * `member:<member id>` (a member in their account's token management area), or
 * `pat:<token id>` (a member's personal access token on the account API).
 */
export type AuditActor =
  | "admin_token"
  | `console:${string}`
  | `member:${string}`
  | `config:${string}`
  | `pat:${string}`
  /** The gateway itself: automatic disabling and recovery of channels (core/channels). */
  | "gateway";

/** What a change was made to: a kind (`key`, `channel`, `model`, …) and its id, when known. */
export interface AuditTarget {
  kind: string;
  id: string | null;
}

export interface AuditRecord {
  id: string;
  at: string;
  actor: AuditActor;
  /** The client's address (as the auth throttle sees it); null for the config file. */
  client_address: string | null;
  method: string;
  /** The route template (`/admin/keys/:id`), or `config:models` / `config:channels`. */
  route: string;
  target: AuditTarget;
  /** The target's public view before the change; null when it did not exist. */
  before: unknown;
  /** The target's public view after the change; null when it does not exist (or it failed). */
  after: unknown;
  /** The HTTP status the change ended with. */
  status: number;
  error_code: string | null;
  request_id: string | null;
}

export type AuditInput = Omit<AuditRecord, "id" | "at">;

/** Filters of an audit list; `actor` `console` or `config` matches every session or file. */
export interface AuditFilter {
  actor?: string;
  target_kind?: string;
  target_id?: string;
}

export const DEFAULT_AUDIT_RETENTION_MS = 365 * 86_400_000;
/** Records a list reads at most to fill one filtered page; past it the page comes back short. */
const MAX_SCANNED_PER_PAGE = 5_000;

function matches(record: AuditRecord, filter: AuditFilter): boolean {
  if (
    filter.actor !== undefined && record.actor !== filter.actor &&
    !record.actor.startsWith(`${filter.actor}:`)
  ) return false;
  if (filter.target_kind !== undefined && record.target.kind !== filter.target_kind) return false;
  if (filter.target_id !== undefined && record.target.id !== filter.target_id) return false;
  return true;
}

/** Writes and lists audit records. */
export class AuditLog {
  #kv: KvBackend;
  #retentionMs: number;

  constructor(kv: KvBackend, options: { retentionMs?: number } = {}) {
    this.#kv = kv;
    this.#retentionMs = options.retentionMs ?? DEFAULT_AUDIT_RETENTION_MS;
  }

  get retentionMs(): number {
    return this.#retentionMs;
  }

  /** Stores one record; KV drops it once the retention period has passed. */
  async write(input: AuditInput): Promise<AuditRecord> {
    const record: AuditRecord = {
      id: timeOrderedId("aud"),
      at: new Date().toISOString(),
      ...input,
    };
    await withKvRetry(() =>
      this.#kv.set(kvKeys.auditRecord(record.id), record, { expireIn: this.#retentionMs })
    );
    return record;
  }

  /**
   * Records newest first unless `options.order` is `asc`. A filtered page reads on until it is
   * full or MAX_SCANNED_PER_PAGE records were read; `cursor` is null once nothing is left.
   */
  async list(options: ListOptions, filter: AuditFilter = {}) {
    const iterator = this.#kv.list<AuditRecord>(
      timeRangeSelector(kvKeys.auditRecords(), (ms) => idTimeBound("aud", ms), options),
      { ...kvListOptions(options), limit: MAX_SCANNED_PER_PAGE },
    );
    const cutoff = Date.now() - this.#retentionMs;
    const data: AuditRecord[] = [];
    let seen = 0;
    for await (const entry of iterator) {
      seen++;
      if (Date.parse(entry.value.at) >= cutoff && matches(entry.value, filter)) {
        data.push(entry.value);
        if (data.length === options.limit) break;
      }
    }
    const more = data.length === options.limit || seen === MAX_SCANNED_PER_PAGE;
    return { data, cursor: more ? iterator.cursor : null };
  }
}
