/** A batch's codes as CSV: id, state, redeemed_by, redeemed_at; never the codes. Pure. */

import { csvField } from "../util/csv_field.ts";
import type { CodeView } from "./redemption_records.ts";

const COLUMNS = ["id", "state", "redeemed_by", "redeemed_at"] as const;

export function codesCsv(codes: readonly CodeView[]): string {
  const lines = [COLUMNS.join(",")];
  for (const code of codes) lines.push(COLUMNS.map((name) => csvField(code[name])).join(","));
  return lines.join("\r\n") + "\r\n";
}
