/**
 * The account forms' fields turned into the admin API's JSON (then validated by the same schemas
 * as /admin/accounts): empty fields are left out, money is typed in currency and sent as units
 * (anything that is no amount is passed on as text, so the schema's own message says what is
 * wrong), a checkbox is a boolean.
 */

import { unitsOrText } from "./currency_units.ts";

type Fields = Record<string, string>;

function text(fields: Fields, name: string): string {
  return fields[name]?.trim() ?? "";
}

/** The body of POST /admin/accounts for the New account form. */
export function accountInputOf(fields: Fields): Record<string, unknown> {
  const input: Record<string, unknown> = { name: text(fields, "name") };
  if (text(fields, "group")) input.group = text(fields, "group");
  if (text(fields, "credit_limit")) input.credit_limit = unitsOrText(fields.credit_limit);
  if (fields.unlimited === "true") input.unlimited = true;
  if (text(fields, "balance")) input.balance = unitsOrText(fields.balance);
  return input;
}

/**
 * The body of PATCH /admin/accounts/:id for the edit form, which sends every field: `unlimited`
 * is a checkbox after a hidden `false`, so an unticked box still says false.
 */
export function accountPatchOf(fields: Fields): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  if ("name" in fields) patch.name = text(fields, "name");
  if ("group" in fields) patch.group = text(fields, "group");
  if ("credit_limit" in fields) patch.credit_limit = unitsOrText(fields.credit_limit);
  if ("unlimited" in fields) patch.unlimited = fields.unlimited === "true";
  return patch;
}

/** The body of POST /admin/accounts/:id/credit (and of a key's credit) for a credit form. */
export function creditInputOf(fields: Fields): Record<string, unknown> {
  return {
    amount: unitsOrText(fields.amount ?? ""),
    ...(text(fields, "note") ? { note: text(fields, "note") } : {}),
  };
}
