/**
 * How a request-log record is stored in KV: its always-present fields by position, its optional
 * ones in a trailing object, its attempts as tuples. The field names were most of a record's
 * bytes, and a record of a plain billed request came to about 970 bytes serialised, just past what
 * SQLite keeps in a B-tree page (about 1,000 bytes of payload with the key): each record took an
 * overflow page of its own, twice the writing per record (docs/performance.md). Stored this way it
 * is about 700. Records written before as objects are read as they are. Pure.
 */

import type { AttemptRecord, RequestLogEntry } from "./request_log_entry.ts";

/** The stored form's first element (an object record has none). */
const FORMAT = 2;

type StoredAttempt = [
  channel_id: string,
  url: string | null,
  outcome: AttemptRecord["outcome"],
  latency_ms: number | null,
  error_class?: AttemptRecord["error_class"],
  status?: number,
  error?: string,
  reason?: AttemptRecord["reason"],
];

/** The optional fields of an entry, by their names. */
type OptionalFields = Omit<RequestLogEntry, RequiredField>;

type RequiredField = typeof REQUIRED[number];

/** The always-present fields, in their stored order. Append only: the order is the format. */
const REQUIRED = [
  "id",
  "at",
  "interface",
  "route",
  "key_id",
  "model",
  "channel_id",
  "status",
  "latency_ms",
  "stream",
  "attempts",
  "upstream_attempts",
  "input_tokens",
  "cached_input_tokens",
  "output_tokens",
  "usage_source",
  "cost",
  "error_code",
  "outcome",
] as const satisfies readonly (keyof RequestLogEntry)[];

export type StoredRequestRecord = [typeof FORMAT, ...unknown[]];

function storedAttempt(attempt: AttemptRecord): StoredAttempt {
  const stored: StoredAttempt = [
    attempt.channel_id,
    attempt.url,
    attempt.outcome,
    attempt.latency_ms ?? null,
  ];
  if (
    attempt.error_class !== undefined || attempt.status !== undefined || attempt.error ||
    attempt.reason
  ) {
    stored.push(attempt.error_class, attempt.status, attempt.error);
  }
  if (attempt.reason) stored.push(attempt.reason);
  return stored;
}

function attemptOf(stored: StoredAttempt): AttemptRecord {
  const [channel_id, url, outcome, latency_ms, error_class, status, error, reason] = stored;
  // The field order of the records the gateway makes (core/upstream/failover.ts).
  const attempt: AttemptRecord = { channel_id, url, outcome } as AttemptRecord;
  if (reason) attempt.reason = reason;
  if (error_class !== undefined && error_class !== null) attempt.error_class = error_class;
  if (status !== undefined && status !== null) attempt.status = status;
  if (error !== undefined && error !== null) attempt.error = error;
  if (latency_ms !== null) attempt.latency_ms = latency_ms;
  return attempt;
}

/** `entry` in its stored form. */
export function storedRecord(entry: RequestLogEntry): StoredRequestRecord {
  const stored: StoredRequestRecord = [FORMAT];
  for (const field of REQUIRED) {
    stored.push(
      field === "upstream_attempts" ? entry.upstream_attempts.map(storedAttempt) : entry[field],
    );
  }
  let optional: Partial<OptionalFields> | undefined;
  for (const field in entry) {
    if ((REQUIRED as readonly string[]).includes(field)) continue;
    const value = entry[field as keyof OptionalFields];
    if (value === undefined) continue;
    optional ??= {};
    (optional as Record<string, unknown>)[field] = value;
  }
  if (optional) stored.push(optional);
  return stored;
}

/** The entry a stored value holds (either form), or null for a value that is not a record. */
export function recordOf(value: unknown): RequestLogEntry | null {
  if (!Array.isArray(value)) {
    return value && typeof value === "object" ? value as RequestLogEntry : null;
  }
  if (value[0] !== FORMAT) return null;
  const entry: Record<string, unknown> = {};
  REQUIRED.forEach((field, index) => {
    const stored = value[index + 1];
    entry[field] = field === "upstream_attempts"
      ? (stored as StoredAttempt[]).map(attemptOf)
      : stored;
  });
  const optional = value[REQUIRED.length + 1];
  if (optional && typeof optional === "object") Object.assign(entry, optional);
  return entry as unknown as RequestLogEntry;
}
