/** What a failed PostgreSQL call means for a commit: a conflict to retry, a lost connection, or else. */

/** SQLSTATEs of a transaction the server rolled back because of another one: retrying is safe. */
const CONFLICT = new Set(["40001", "40P01"]);
/** SQLSTATE classes and codes of a connection gone or refused by the server. */
const CONNECTION_STATES = /^(08|57P0[123])/;

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** A serialization failure or deadlock: the transaction was rolled back whole. */
export function isConflict(error: unknown): boolean {
  return CONFLICT.has(codeOf(error) ?? "");
}

/**
 * The connection was lost or could not be made (the driver's CONNECTION_* and socket errors, or
 * the server's class 08 and shutdown states): what was in flight may or may not have run.
 */
export function isConnectionLost(error: unknown): boolean {
  const code = codeOf(error);
  if (!code) return false;
  const fromServer = (error as { name?: string }).name === "PostgresError";
  if (fromServer) return CONNECTION_STATES.test(code);
  return /^(CONNECTION_|CONNECT_TIMEOUT|E[A-Z]+)/.test(code);
}
