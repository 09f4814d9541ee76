/**
 * The PostgreSQL store's one table and its versionstamp sequence, created on first start. SQL
 * that CockroachDB also accepts: no extensions, no advisory locks, no LISTEN/NOTIFY.
 *
 * - `key`: the key in Deno KV's byte encoding (key_codec.ts), so `bytea` order is KV order;
 * - `value`: a kind byte and the value (value_codec.ts);
 * - `versionstamp`: the sequence number of the commit that wrote the entry (shown as 20 hex
 *   characters, as Deno KV's);
 * - `expires_at`: epoch ms after which the entry is gone (read as absent, then swept), or null.
 */

export const TABLE = "gateway_kv";
export const SEQUENCE = "gateway_kv_versionstamp";
/**
 * One row per commit that wrote something, by its versionstamp, written in the same transaction:
 * a commit whose connection was lost after its writes were sent is tried again under the same
 * versionstamp, and the row's unique key decides it — the retry's insert waits for the first
 * transaction to end, then fails if that one committed (it is answered as committed, applied
 * once) or goes on if it did not. Rows are swept after COMMIT_LOG_KEEP_MS.
 */
export const COMMIT_LOG = "gateway_kv_commits";
export const COMMIT_LOG_KEEP_MS = 60 * 60_000;

export const SCHEMA: string[] = [
  `CREATE TABLE IF NOT EXISTS ${TABLE} (
    key BYTEA PRIMARY KEY,
    value BYTEA NOT NULL,
    versionstamp BIGINT NOT NULL,
    expires_at BIGINT
  )`,
  `CREATE INDEX IF NOT EXISTS ${TABLE}_expires_at ON ${TABLE} (expires_at)`,
  `CREATE SEQUENCE IF NOT EXISTS ${SEQUENCE}`,
  `CREATE TABLE IF NOT EXISTS ${COMMIT_LOG} (
    versionstamp BIGINT PRIMARY KEY,
    at BIGINT NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS ${COMMIT_LOG}_at ON ${COMMIT_LOG} (at)`,
];

/** The versionstamp string of sequence number `n`: 16 hex digits and a batch index of 0000. */
export function versionstampOf(n: bigint | string): string {
  return BigInt(n).toString(16).padStart(16, "0") + "0000";
}
