/**
 * Request-log records as CSV rows (RFC 4180: CRLF line ends, fields quoted when needed). Pure.
 *
 * Many fields are chosen by clients (model names, ignored field names, routes), and a spreadsheet
 * runs a cell that starts with `=`, `+`, `-`, `@`, tab or CR as a formula. Such a text cell is
 * written as OWASP's CSV-injection guidance says: a single quote before it, and the cell quoted,
 * so it opens as text. Numbers the record holds as numbers (latency, tokens, cost) are written as
 * they are: a JavaScript number's text is only digits, a sign, a point and an exponent, never a
 * formula, and `-5` stays a number a spreadsheet can sum.
 */

import { csvField } from "../util/csv_field.ts";
import type { RequestLogEntry } from "./request_log_entry.ts";

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

export { csvField };

export function csvHeader(): string {
  return `${CSV_COLUMNS.join(",")}\r\n`;
}

export function csvRow(record: RequestLogEntry): string {
  const values = record as unknown as Record<string, unknown>;
  return `${CSV_COLUMNS.map((column) => csvField(values[column])).join(",")}\r\n`;
}
