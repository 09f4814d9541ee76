/**
 * The store seam: the part of `Deno.Kv` the gateway's stores use, and all a storage backend has
 * to implement. `Deno.Kv` (embedded SQLite, `:memory:`, KV Connect, Deno Deploy) is one; another
 * backend is a module whose object has these methods and passes the KV conformance suite
 * (tests/core/kv/kv_conformance.ts). Stores take a `KvBackend`, never a `Deno.Kv`
 * (tests/architecture/kv_backend_only_test.ts).
 *
 * Keys, entries, selectors and `Deno.KvU64` are Deno's plain data types and stay as they are.
 * Not in the subset: `watch`, `mutate`, `min`/`max`, `Kv.enqueue`, read consistency options.
 */

/** The list options the stores pass. */
export type KvBackendListOptions = Pick<
  Deno.KvListOptions,
  "limit" | "cursor" | "reverse" | "batchSize"
>;

/** A list's entries in key order; `cursor` resumes after the last entry read. */
export interface KvListing<T> extends AsyncIterableIterator<Deno.KvEntry<T>> {
  readonly cursor: string;
}

/** One atomic commit: every check holds and every mutation is applied, or none is. */
export interface KvAtomic {
  /** Fails the commit (`ok: false`) unless each key's versionstamp is still the one given. */
  check(...checks: Deno.AtomicCheck[]): this;
  set(key: Deno.KvKey, value: unknown, options?: { expireIn?: number }): this;
  delete(key: Deno.KvKey): this;
  /** Adds `n` to a `Deno.KvU64` (0 when absent), modulo 2^64. */
  sum(key: Deno.KvKey, n: bigint): this;
  /** Only when the gateway runs with queues (`taskQueue`: an embedded KV). */
  enqueue(value: unknown): this;
  commit(): Promise<Deno.KvCommitResult | Deno.KvCommitError>;
}

/** What the stores need of a KV store. */
export interface KvBackend {
  get<T = unknown>(key: Deno.KvKey): Promise<Deno.KvEntryMaybe<T>>;
  /** At most 10 keys. */
  getMany<T extends readonly unknown[]>(
    keys: readonly [...{ [K in keyof T]: Deno.KvKey }],
  ): Promise<{ [K in keyof T]: Deno.KvEntryMaybe<T[K]> }>;
  set(
    key: Deno.KvKey,
    value: unknown,
    options?: { expireIn?: number },
  ): Promise<Deno.KvCommitResult>;
  delete(key: Deno.KvKey): Promise<void>;
  list<T = unknown>(selector: Deno.KvListSelector, options?: KvBackendListOptions): KvListing<T>;
  atomic(): KvAtomic;
  /** Only when the gateway runs with queues (`taskQueue`: an embedded KV). */
  listenQueue(handler: (value: unknown) => Promise<void> | void): Promise<void>;
  close(): void;
}
