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
 * The statement ran past its deadline (`statement_timeout`) and was cancelled: its transaction is
 * rolled back, nothing of it applied.
 */
export function isStatementTimeout(error: unknown): boolean {
  return codeOf(error) === "57014";
}

/** What node-postgres says when a connection ends, cannot be made, or was broken before. */
const LOST =
  /Connection terminated|timeout exceeded when trying to connect|not queryable|connection error/i;

/**
 * The connection was lost or could not be made (a socket error, node-postgres's own messages, or
 * the server's class 08 and shutdown states): what was in flight may or may not have run.
 */
export function isConnectionLost(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = codeOf(error) ?? "";
  return CONNECTION_STATES.test(code) || /^E[A-Z]+$/.test(code) || LOST.test(error.message);
}
