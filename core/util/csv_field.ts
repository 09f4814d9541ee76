/** One CSV field, safe to open in a spreadsheet. */

/** What a spreadsheet may read as the start of a formula (OWASP's list). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One field: quoted when it holds a comma, a quote, CR or LF; quotes doubled. Text that could
 * start a formula gets a leading `'` and is quoted; a number is written as it is.
 */
export function csvField(value: unknown): string {
  if (typeof value === "number") return String(value);
  const text = value === null || value === undefined
    ? ""
    : Array.isArray(value)
    ? value.join(",")
    : String(value);
  if (FORMULA_START.test(text)) return `"'${text.replaceAll('"', '""')}"`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
