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

export const SCHEMA: string[] = [
  `CREATE TABLE IF NOT EXISTS ${TABLE} (
    key BYTEA PRIMARY KEY,
    value BYTEA NOT NULL,
    versionstamp BIGINT NOT NULL,
    expires_at BIGINT
  )`,
  `CREATE INDEX IF NOT EXISTS ${TABLE}_expires_at ON ${TABLE} (expires_at)`,
  `CREATE SEQUENCE IF NOT EXISTS ${SEQUENCE}`,
];

/** The versionstamp string of sequence number `n`: 16 hex digits and a batch index of 0000. */
export function versionstampOf(n: bigint | string): string {
  return BigInt(n).toString(16).padStart(16, "0") + "0000";
}
