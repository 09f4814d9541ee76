/**
 * The PostgreSQL store: a `KvBackend` (core/kv/kv_backend.ts) on one table (schema.ts), through
 * node-postgres. Reads are single statements; an atomic commit is one SERIALIZABLE transaction that
 * reads its checked and summed keys (`FOR UPDATE`), fails with `ok: false` unless every check
 * holds, then writes each key's final state with the commit's versionstamp (the next value of a
 * sequence). A serialization failure or deadlock rolls the whole transaction back, so it is
 * retried here (the checks are read again); after a few it is a failed commit. A connection lost
 * before the writes were sent is retried too; one lost after them throws, since the commit may or
 * may not have been applied (as a KV Connect commit does). No queues: the gateway polls instead.
 * See docs/design.md (the PostgreSQL store).
 */

import { createPool, type Pool, type PoolClient } from "./pg_pool.ts";
import type { KvAtomic, KvBackend, KvBackendListOptions, KvListing } from "../kv_backend.ts";
import { isConflict, isConnectionLost, isStatementTimeout } from "./pg_errors.ts";
import {
  COMMIT_LOG,
  COMMIT_LOG_KEEP_MS,
  SCHEMA,
  SEQUENCE,
  TABLE,
  versionstampOf,
} from "./schema.ts";
import {
  checksHold,
  type CommitPlan,
  finalWrites,
  keyOf,
  LIMITS,
  type Mutation,
  planCommit,
} from "./commit_plan.ts";
import { decodeKey } from "./key_codec.ts";
import { decodeValue } from "./value_codec.ts";
import { type ListRange, SelectorRange } from "./list_range.ts";

export interface PostgresKvOptions {
  /** Connections in the pool (GATEWAY_PG_POOL). */
  poolSize?: number;
  /** Each statement's deadline on the server (GATEWAY_PG_STATEMENT_TIMEOUT_MS). */
  statementTimeoutMs?: number;
  /** How long a connection attempt may take. */
  connectTimeoutMs?: number;
  /** How often expired entries are deleted (0: never, for tests that sweep by hand). */
  sweepEveryMs?: number;
  now?: () => number;
}

export const DEFAULT_POOL_SIZE = 10;
export const DEFAULT_STATEMENT_TIMEOUT_MS = 10_000;
const DEFAULT_SWEEP_EVERY_MS = 60_000;
/** Expired entries deleted per statement of a sweep. */
const SWEEP_BATCH = 1_000;
/**
 * Tries of a commit with checks that conflicts with others; then it fails (`ok: false`). Under
 * SERIALIZABLE, writers of keys near each other (one index page) conflict though their keys
 * differ; eight tries with short pauses were spent by six processes creating keys at once on a
 * loaded machine (a key create answered 409), so the pauses grow and there are more of them.
 */
const CONFLICT_ATTEMPTS = 20;
/**
 * Tries of a commit without checks (Deno KV never fails one, and a store may not look): it goes
 * on through conflicts, and only then throws.
 */
const UNCHECKED_CONFLICT_ATTEMPTS = 100;
/** Quick tries of a commit whose connection was lost before its writes were sent; then it waits for the server. */
const CONNECTION_ATTEMPTS = 3;
/** Deno KV's largest list batch. */
const MAX_BATCH = 1_000;

type Row = { key: Uint8Array; value: Uint8Array; versionstamp: string };

const LIVE = "(expires_at IS NULL OR expires_at > $1)";

function placeholders(from: number, count: number): string {
  return Array.from({ length: count }, (_, i) => `$${from + i}`).join(", ");
}

function pause(attempt: number): Promise<void> {
  const most = Math.min(5 * 2 ** (attempt - 1), 200);
  return new Promise((resolve) => setTimeout(resolve, Math.random() * most));
}

/** The wait before trying an unreachable server again: doubling from 50 ms, at most 1 s. */
function reconnectPause(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 50 * 2 ** attempt)));
}

/** Opens the store at `url` (postgres:// or postgresql://), creating its table when missing. */
export async function openPostgresKv(
  url: string,
  options: PostgresKvOptions = {},
): Promise<PostgresKv> {
  const pool = createPool(url, {
    max: options.poolSize ?? DEFAULT_POOL_SIZE,
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    statementTimeoutMs: options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
  });
  try {
    await createSchema(pool);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return new PostgresKv(pool, options);
}

/** SQLSTATEs of a CREATE … IF NOT EXISTS that lost a race with the same statement elsewhere. */
const CREATED_MEANWHILE = new Set(["23505", "42P07", "42710"]);

async function createSchema(pool: Pool): Promise<void> {
  for (const statement of SCHEMA) {
    for (let attempt = 1;; attempt++) {
      try {
        await pool.query(statement);
        break;
      } catch (error) {
        // Instances starting at once: the other one created it first; now it exists.
        const code = (error as { code?: string }).code ?? "";
        if (!CREATED_MEANWHILE.has(code) || attempt >= 3) throw error;
      }
    }
  }
}

export class PostgresKv implements KvBackend {
  readonly #pool: Pool;
  readonly #now: () => number;
  #sweeper?: ReturnType<typeof setInterval>;
  #closed = false;
  #ended?: Promise<void>;

  constructor(pool: Pool, options: PostgresKvOptions = {}) {
    this.#pool = pool;
    this.#now = options.now ?? Date.now;
    const every = options.sweepEveryMs ?? DEFAULT_SWEEP_EVERY_MS;
    if (every > 0) {
      const sweeper = setInterval(() => this.sweepExpired().catch(() => {}), every);
      Deno.unrefTimer(sweeper);
      this.#sweeper = sweeper;
    }
  }

  #open(): Pool {
    if (this.#closed) throw new Deno.errors.BadResource("the PostgreSQL store is closed");
    return this.#pool;
  }

  /**
   * A read, tried again while the server cannot be reached (a read changes nothing, so trying
   * again is safe), as the KV Connect client does: a store that is down makes calls wait, and
   * the gateway's deadline on each call (core/kv/deadline_kv.ts) answers the caller meanwhile.
   */
  async #rows(sql: string, values: unknown[]): Promise<Row[]> {
    for (let attempt = 1;; attempt++) {
      try {
        return (await this.#open().query<Row>(sql, values)).rows;
      } catch (error) {
        if (!isConnectionLost(error)) throw error;
        await reconnectPause(attempt);
      }
    }
  }

  async get<T = unknown>(key: Deno.KvKey): Promise<Deno.KvEntryMaybe<T>> {
    const [entry] = await this.getMany<[T]>([key]);
    return entry;
  }

  async getMany<T extends readonly unknown[]>(
    keys: readonly [...{ [K in keyof T]: Deno.KvKey }],
  ): Promise<{ [K in keyof T]: Deno.KvEntryMaybe<T[K]> }> {
    this.#open();
    if (keys.length > 10) throw new TypeError("Too many ranges (max 10)");
    const encoded = keys.map((key) => keyOf(key, LIMITS.readKeyBytes, "read"));
    const rows = encoded.length === 0 ? [] : await this.#rows(
      `SELECT key, value, versionstamp FROM ${TABLE} WHERE ${LIVE} AND key IN (${
        placeholders(2, encoded.length)
      })`,
      [this.#now(), ...encoded.map((key) => key.bytes)],
    );
    const found = new Map(rows.map((row) => [row.key.toHex(), row]));
    return keys.map((key, i) => {
      const row = found.get(encoded[i].id);
      return row
        ? { key, value: decodeValue(row.value), versionstamp: versionstampOf(row.versionstamp) }
        : { key, value: null, versionstamp: null };
    }) as { [K in keyof T]: Deno.KvEntryMaybe<T[K]> };
  }

  async set(
    key: Deno.KvKey,
    value: unknown,
    options: { expireIn?: number } = {},
  ): Promise<Deno.KvCommitResult> {
    // The store's own write: PostgreSQL has no "database is locked"; conflicts retry in commit.
    // kv-locked: see above
    const result = await this.atomic().set(key, value, options).commit();
    if (!result.ok) throw new TypeError("Failed to set value");
    return result;
  }

  async delete(key: Deno.KvKey): Promise<void> {
    // kv-locked: as in set.
    const result = await this.atomic().delete(key).commit();
    if (!result.ok) throw new TypeError("Failed to delete value");
  }

  list<T = unknown>(
    selector: Deno.KvListSelector,
    options: KvBackendListOptions = {},
  ): KvListing<T> {
    this.#open();
    return new PostgresListing<T>(
      new SelectorRange(selector),
      options,
      (range, reverse, limit) => this.#readRange(range, reverse, limit),
    );
  }

  async #readRange(range: ListRange, reverse: boolean, limit: number): Promise<Row[]> {
    return await this.#rows(
      `SELECT key, value, versionstamp FROM ${TABLE} WHERE ${LIVE} AND key >= $2 AND key < $3
       ORDER BY key ${reverse ? "DESC" : "ASC"} LIMIT $4`,
      [this.#now(), range.start, range.end, limit],
    );
  }

  atomic(): KvAtomic {
    return new PostgresAtomic((checks, mutations) => this.#commit(checks, mutations));
  }

  listenQueue(_handler: (value: unknown) => Promise<void> | void): Promise<void> {
    return Promise.reject(
      new TypeError("the PostgreSQL store has no queues: the gateway polls for due tasks"),
    );
  }

  /** Deletes entries past their expiry (and old commit-log rows); returns how many entries. */
  async sweepExpired(): Promise<number> {
    await this.#open().query(`DELETE FROM ${COMMIT_LOG} WHERE at < $1`, [
      this.#now() - COMMIT_LOG_KEEP_MS,
    ]);
    let deleted = 0;
    for (;;) {
      const result = await this.#open().query(
        `DELETE FROM ${TABLE} WHERE key IN (
           SELECT key FROM ${TABLE} WHERE expires_at <= $1 LIMIT ${SWEEP_BATCH})`,
        [this.#now()],
      );
      const count = result.rowCount ?? 0;
      deleted += count;
      if (count < SWEEP_BATCH) return deleted;
    }
  }

  close(): void {
    this.end().catch(() => {});
  }

  /** Closes the store and waits until its connections are closed (queries in flight end first). */
  end(): Promise<void> {
    if (!this.#ended) {
      this.#closed = true;
      clearInterval(this.#sweeper);
      this.#ended = this.#pool.end();
    }
    return this.#ended;
  }

  async #commit(
    checks: Deno.AtomicCheck[],
    mutations: Mutation[],
  ): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
    const pool = this.#open();
    const plan = planCommit(checks, mutations, this.#now());
    /** Set once an attempt was lost while writing: the versionstamp it wrote under. */
    let retryAs: string | undefined;
    for (let attempt = 1;; attempt++) {
      const progress: CommitProgress = { wrote: false, versionstamp: retryAs };
      try {
        return await this.#transaction(pool, plan, progress);
      } catch (error) {
        if (isConflict(error)) {
          // A retry of an attempt that may have committed never answers "not applied": the
          // commit log decides it, so it tries until the log can be read.
          if (plan.checks.length && attempt >= CONFLICT_ATTEMPTS && retryAs === undefined) {
            return { ok: false };
          }
          if (attempt >= UNCHECKED_CONFLICT_ATTEMPTS && retryAs === undefined) {
            throw new Error(
              `a commit without checks met ${attempt} serialization conflicts in a row`,
              { cause: error },
            );
          }
        } else if (retryAs !== undefined && isStatementTimeout(error)) {
          // The retry waited on the first attempt's transaction (still open on a connection the
          // server has not yet seen die) past the deadline: nothing of it applied; wait again.
          await reconnectPause(Math.min(attempt, 5));
          continue;
        } else if (isConnectionLost(error)) {
          if (progress.wrote) {
            // It may or may not have committed: tried again under its versionstamp, which the
            // commit log settles (see COMMIT_LOG), waiting for the server as long as it takes.
            retryAs = progress.versionstamp;
            await reconnectPause(Math.min(attempt, 5));
            continue;
          }
          // Nothing of it was written: it waits for the server, as a read does (see #rows).
          if (attempt >= CONNECTION_ATTEMPTS) {
            await reconnectPause(attempt - CONNECTION_ATTEMPTS + 1);
            continue;
          }
        } else {
          throw error;
        }
        await pause(attempt);
      }
    }
  }

  /** One try of a commit: its transaction on one connection, rolled back on any failure. */
  async #transaction(
    pool: Pool,
    plan: CommitPlan,
    progress: CommitProgress,
  ): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
    const client = await pool.connect();
    let failure: unknown;
    try {
      await client.query("BEGIN ISOLATION LEVEL SERIALIZABLE");
      const result = await this.#applyCommit(client, plan, progress);
      await client.query(result.ok ? "COMMIT" : "ROLLBACK");
      return result;
    } catch (error) {
      failure = error;
      if (!isConnectionLost(error)) await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      // A connection that failed is closed, not given to the next commit.
      client.release(isConnectionLost(failure) ? failure as Error : undefined);
    }
  }

  async #applyCommit(
    tx: PoolClient,
    plan: CommitPlan,
    progress: CommitProgress,
  ): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
    const retried = progress.versionstamp;
    if (retried !== undefined) {
      // First, so that it waits for a first attempt still running on the server to end.
      const settled = await tx.query(
        `INSERT INTO ${COMMIT_LOG} (versionstamp, at) VALUES ($1, $2)
         ON CONFLICT (versionstamp) DO NOTHING`,
        [retried, this.#now()],
      );
      // The first attempt committed: it was applied once; answer it as committed.
      if (settled.rowCount === 0) return { ok: true, versionstamp: versionstampOf(retried) };
    }
    const rows = plan.reads.length === 0 ? [] : (await tx.query<Row>(
      `SELECT key, value, versionstamp FROM ${TABLE} WHERE ${LIVE} AND key IN (${
        placeholders(2, plan.reads.length)
      }) FOR UPDATE`,
      [this.#now(), ...plan.reads.map((key) => key.bytes)],
    )).rows;
    const versionstamps = new Map<string, string>();
    const values = new Map<string, Uint8Array>();
    for (const row of rows) {
      const id = row.key.toHex();
      versionstamps.set(id, versionstampOf(row.versionstamp));
      values.set(id, row.value);
    }
    if (!checksHold(plan, versionstamps)) return { ok: false };
    const writes = finalWrites(plan, values);
    const n = retried ?? (await tx.query<{ n: string }>(
      `SELECT nextval('${SEQUENCE}') AS n`,
    )).rows[0].n;
    const upserts = writes.filter((write) => write.value !== null);
    const deletes = writes.filter((write) => write.value === null);
    progress.versionstamp = n;
    progress.wrote = true;
    if (retried === undefined && writes.length) {
      await tx.query(`INSERT INTO ${COMMIT_LOG} (versionstamp, at) VALUES ($1, $2)`, [
        n,
        this.#now(),
      ]);
    }
    if (upserts.length) {
      await tx.query(
        `INSERT INTO ${TABLE} (key, value, versionstamp, expires_at) VALUES ${
          upserts.map((_, i) => `($${2 + i * 3}, $${3 + i * 3}, $1, $${4 + i * 3})`).join(", ")
        } ON CONFLICT (key) DO UPDATE SET value = excluded.value,
          versionstamp = excluded.versionstamp, expires_at = excluded.expires_at`,
        [n, ...upserts.flatMap((write) => [write.bytes, write.value!, write.expiresAt])],
      );
    }
    if (deletes.length) {
      await tx.query(
        `DELETE FROM ${TABLE} WHERE key IN (${placeholders(1, deletes.length)})`,
        deletes.map((write) => write.bytes),
      );
    }
    return { ok: true, versionstamp: versionstampOf(n) };
  }
}

/** How far one attempt of a commit got: whether its writes were sent, under which versionstamp. */
interface CommitProgress {
  wrote: boolean;
  /** The sequence number it writes under (a retry of a lost attempt: that attempt's). */
  versionstamp?: string;
}

type Commit = (
  checks: Deno.AtomicCheck[],
  mutations: Mutation[],
) => Promise<Deno.KvCommitResult | Deno.KvCommitError>;

/** A commit being built; nothing is checked until `commit`, as with Deno KV's. */
class PostgresAtomic implements KvAtomic {
  readonly #checks: Deno.AtomicCheck[] = [];
  readonly #mutations: Mutation[] = [];
  readonly #commit: Commit;

  constructor(commit: Commit) {
    this.#commit = commit;
  }

  check(...checks: Deno.AtomicCheck[]): this {
    this.#checks.push(...checks.map(({ key, versionstamp }) => ({ key, versionstamp })));
    return this;
  }

  set(key: Deno.KvKey, value: unknown, options: { expireIn?: number } = {}): this {
    this.#mutations.push({ kind: "set", key, value, expireIn: options.expireIn });
    return this;
  }

  delete(key: Deno.KvKey): this {
    this.#mutations.push({ kind: "delete", key });
    return this;
  }

  sum(key: Deno.KvKey, n: bigint): this {
    this.#mutations.push({ kind: "sum", key, n });
    return this;
  }

  enqueue(_value: unknown): this {
    throw new TypeError("the PostgreSQL store has no queues: the gateway polls for due tasks");
  }

  commit(): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
    return this.#commit(this.#checks, this.#mutations);
  }
}

type ReadRange = (range: ListRange, reverse: boolean, limit: number) => Promise<Row[]>;

/** A list read in batches, as Deno KV's list iterator does; its cursor is Deno KV's. */
class PostgresListing<T> implements KvListing<T> {
  readonly #selector: SelectorRange;
  readonly #read: ReadRange;
  readonly #reverse: boolean;
  readonly #limit?: number;
  readonly #batchSize: number;
  #cursorOf: (() => string) | null;
  /** The batch not yet given, last first, each with its key's bytes. */
  #entries: { entry: Deno.KvEntry<T>; bytes: Uint8Array }[] = [];
  #lastBatch = false;
  #done = false;
  #count = 0;

  constructor(selector: SelectorRange, options: KvBackendListOptions, read: ReadRange) {
    if (options.limit !== undefined && options.limit <= 0) {
      throw new TypeError("limit must be positive");
    }
    let batchSize = options.batchSize ?? options.limit ?? 100;
    if (batchSize <= 0) throw new TypeError("batchSize must be positive");
    if (options.batchSize === undefined && batchSize > 500) batchSize = 500;
    if (batchSize > MAX_BATCH) throw new TypeError(`Too many entries (max ${MAX_BATCH})`);
    this.#selector = selector;
    this.#read = read;
    this.#reverse = options.reverse ?? false;
    this.#limit = options.limit;
    this.#batchSize = batchSize;
    const cursor = options.cursor;
    this.#cursorOf = cursor === undefined ? null : () => cursor;
  }

  get cursor(): string {
    if (this.#cursorOf === null) throw new Error("Cannot get cursor before first iteration");
    return this.#cursorOf();
  }

  async next(): Promise<IteratorResult<Deno.KvEntry<T>, undefined>> {
    if (this.#done || (this.#limit !== undefined && this.#count >= this.#limit)) {
      return { done: true, value: undefined };
    }
    if (this.#entries.length === 0 && !this.#lastBatch) {
      const range = this.#selector.after(this.#cursorOf?.(), this.#reverse);
      const rows = await this.#read(range, this.#reverse, this.#batchSize);
      this.#entries = rows.map((row) => ({
        entry: {
          key: decodeKey(row.key),
          value: decodeValue(row.value) as T,
          versionstamp: versionstampOf(row.versionstamp),
        },
        bytes: row.key,
      })).reverse();
      if (rows.length < this.#batchSize) this.#lastBatch = true;
    }
    const next = this.#entries.pop();
    if (!next) {
      this.#done = true;
      this.#cursorOf = () => "";
      return { done: true, value: undefined };
    }
    this.#cursorOf = () => this.#selector.cursorAfter(next.bytes);
    this.#count++;
    return { done: false, value: next.entry };
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<Deno.KvEntry<T>> {
    return this;
  }
}
