/**
 * The console's model forms as the admin API's bodies: Add a model (the PUT body) and Groups (a
 * PATCH). Prices go through model_price_forms.ts; the admin schemas check the result, so a bad
 * value gets the API's own message. Pure.
 */

import { listOf } from "./channel_form.ts";
import { priceOfForm } from "./model_price_forms.ts";

/** The PUT /admin/models/{id} body of the Add form. */
export function modelInputOf(fields: Record<string, string>): Record<string, unknown> {
  const kind = (fields.kind ?? "").trim();
  const input: Record<string, unknown> = {
    kind,
    groups: listOf(fields.groups ?? ""),
    price: priceOfForm(kind, fields),
    enabled: fields.enabled === "true",
  };
  const description = (fields.description ?? "").trim();
  if (description) input.description = description;
  const displayName = (fields.display_name ?? "").trim();
  if (displayName) input.display_name = displayName;
  return input;
}

/** The PATCH body of the Price form: the kind and its price (a kind changes with its price). */
export function pricePatchOf(fields: Record<string, string>): Record<string, unknown> {
  const kind = (fields.kind ?? "").trim();
  return { kind, price: priceOfForm(kind, fields) };
}

/** The PATCH body of the Groups form. */
export function groupsPatchOf(fields: Record<string, string>): Record<string, unknown> {
  return { groups: listOf(fields.groups ?? "") };
}
