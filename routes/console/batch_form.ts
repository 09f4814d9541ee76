/**
 * The New batch form's fields turned into the body of POST /admin/redemption-batches (then
 * validated by the same schema): empty optional fields are left out, the amount is typed in
 * currency and sent as units, the count read as an integer (anything else is passed on as text,
 * so the schema's own message says what is wrong), the expiry from a `datetime-local` input is
 * read as UTC.
 */

import { unitsOrText } from "./currency_units.ts";

type Fields = Record<string, string>;

function integerOrText(value: string): number | string {
  return /^-?\d+$/.test(value) ? Number(value) : value;
}

function utcTime(value: string): string {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value) ? `${value}:00Z` : value;
}

export function batchInputOf(fields: Fields): Record<string, unknown> {
  const text = (name: string) => fields[name]?.trim() ?? "";
  const input: Record<string, unknown> = {
    name: text("name"),
    amount: unitsOrText(text("amount")),
    count: integerOrText(text("count")),
  };
  if (text("expires_at")) input.expires_at = utcTime(text("expires_at"));
  if (text("group")) input.group = text("group");
  return input;
}
