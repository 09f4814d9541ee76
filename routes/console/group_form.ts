/**
 * The group form's fields turned into the body of PUT /admin/groups/:name (then validated by the
 * same schema): the multiplier is read as a number when it is written as one, else passed on as
 * text so the schema's own message says what is wrong; an empty multiplier is left out (×1).
 */

type Fields = Record<string, string>;

function numberOrText(value: string): number | string {
  const trimmed = value.trim();
  return /^-?\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : trimmed;
}

/** The group's name as typed (checked by the admin route's own name check). */
export function groupNameOf(fields: Fields): string {
  return fields.name?.trim() ?? "";
}

/** The body of PUT /admin/groups/:name for the group forms. */
export function groupInputOf(fields: Fields): Record<string, unknown> {
  const input: Record<string, unknown> = { description: fields.description?.trim() ?? "" };
  const multiplier = fields.price_multiplier?.trim() ?? "";
  if (multiplier) input.price_multiplier = numberOrText(multiplier);
  return input;
}
