/** Request-log records as CSV rows (RFC 4180: CRLF line ends, fields quoted when needed). Pure. */

import type { RequestLogEntry } from "./request_log.ts";

/** The exported columns, in order. */
export const CSV_COLUMNS = [
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
  "input_tokens",
  "cached_input_tokens",
  "output_tokens",
  "images",
  "billed_seconds",
  "cost",
  "error_code",
  "outcome",
  "task_id",
  "task_status",
  "ignored_fields",
] as const;

/** One field: quoted when it holds a comma, a quote, CR or LF; quotes doubled. */
export function csvField(value: unknown): string {
  const text = value === null || value === undefined
    ? ""
    : Array.isArray(value)
    ? value.join(",")
    : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvHeader(): string {
  return `${CSV_COLUMNS.join(",")}\r\n`;
}

export function csvRow(record: RequestLogEntry): string {
  const values = record as unknown as Record<string, unknown>;
  return `${CSV_COLUMNS.map((column) => csvField(values[column])).join(",")}\r\n`;
}
