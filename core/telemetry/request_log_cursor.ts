/**
 * Cursors of request-log queries. A walk of the log itself gives KV's own cursor. A walk of an
 * index gives a cursor of its own, the id of the last record it read (the next page reads the
 * records after it): base64url JSON, which KV's cursors (a key tail, starting with a type byte)
 * never are.
 */

/** Where a query starts: after KV's cursor `kv`, or after the record `after` of an index. */
export interface RequestLogCursor {
  kv?: string;
  after?: string;
}

/** The cursor of an index walk that read up to the record `id`. */
export function indexCursor(id: string): string {
  return new TextEncoder().encode(JSON.stringify({ after: id })).toBase64({
    alphabet: "base64url",
    omitPadding: true,
  });
}

function decodedText(cursor: string): string | undefined {
  try {
    return new TextDecoder().decode(Uint8Array.fromBase64(cursor, { alphabet: "base64url" }));
  } catch {
    return undefined;
  }
}

/** Where `cursor` (a KV cursor or an index cursor) starts; throws KV's TypeError on a bad one. */
export function readRequestLogCursor(cursor: string | undefined): RequestLogCursor {
  if (cursor === undefined) return {};
  const text = decodedText(cursor);
  if (!text?.startsWith("{")) return { kv: cursor };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new TypeError("invalid cursor");
  }
  const after = (parsed as { after?: unknown } | null)?.after;
  if (typeof after !== "string" || !/^req_[0-9a-z]{9}/.test(after) || after.length > 64) {
    throw new TypeError("invalid cursor");
  }
  return { after };
}
