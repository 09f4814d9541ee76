/**
 * A member's key form turned into the token management area's input (then validated by the
 * member key schemas): the admin form's reading of each field (key_form.ts), the models from the
 * multiple select, and `enabled` from its checkbox. Fields only the operator sets are dropped.
 */

import { keyPatchOf } from "./key_form.ts";

type Fields = Record<string, string>;

const OPERATOR_FIELDS = ["group", "balance", "models"];

function memberFields(fields: Fields): Fields {
  const kept = { ...fields };
  for (const name of OPERATOR_FIELDS) delete kept[name];
  return kept;
}

/** The body of a new key: `models` empty means every model of the account. */
export function memberKeyInputOf(fields: Fields, models: string[]): Record<string, unknown> {
  const input: Record<string, unknown> = { ...keyPatchOf(memberFields(fields)) };
  if (models.length) input.models = models;
  input.enabled = fields.enabled === "true";
  return input;
}

/** The patch of the edit form: an empty field clears its limit; no model chosen allows all. */
export function memberKeyPatchOf(fields: Fields, models: string[]): Record<string, unknown> {
  const patch: Record<string, unknown> = {
    ...keyPatchOf(memberFields(fields), { clearEmpty: true }),
  };
  patch.models = models.length ? models : null;
  return patch;
}
