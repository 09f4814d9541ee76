/**
 * The PostgreSQL connection pool (node-postgres, `pg`) with the few calls the store makes, typed
 * here (the package ships no types). A connection error on an idle or checked-out connection is
 * reported to the query in flight, never thrown as an uncaught event.
 */

import pg from "pg";

export interface QueryResult<R> {
  rows: R[];
  rowCount: number | null;
}

export interface Queryable {
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<QueryResult<R>>;
}

export interface PoolClient extends Queryable {
  /** Back to the pool; with an error, the connection is closed instead. */
  release(destroy?: Error | boolean): void;
}

export interface Pool extends Queryable {
  connect(): Promise<PoolClient>;
  end(): Promise<void>;
}

export interface PoolOptions {
  max: number;
  statementTimeoutMs: number;
  connectTimeoutMs: number;
}

/** A pool on `url` (parameters such as `sslmode` and `options` read from it by `pg`). */
export function createPool(url: string, options: PoolOptions): Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max,
    connectionTimeoutMillis: options.connectTimeoutMs,
    statement_timeout: options.statementTimeoutMs,
    application_name: "gateway",
  });
  // An idle connection the server ended: the pool drops it and makes another when needed.
  pool.on("error", () => {});
  // A checked-out connection that fails rejects its query; the event itself must not throw.
  pool.on("connect", (client: { on(event: "error", listener: () => void): void }) => {
    client.on("error", () => {});
  });
  return pool;
}
