/**
 * The webhook forms' fields turned into the admin API's JSON (then validated by the same
 * schemas): events from checkboxes, the scope from one choice (all keys, a group, a key), and
 * checkbox flags as booleans.
 */

import { SUBSCRIBABLE_EVENTS } from "../../core/webhooks/endpoint_schema.ts";

type Fields = Record<string, string>;

/** The scope fields of a form: `scope` is `all`, `group` or `key`, with its value beside it. */
function scopeOf(fields: Fields): { key_id: string | null; group: string | null } {
  const scope = fields.scope ?? "all";
  if (scope === "key") return { key_id: fields.key_id?.trim() || "", group: null };
  if (scope === "group") return { key_id: null, group: fields.group?.trim() || "" };
  return { key_id: null, group: null };
}

/** The body of PATCH /admin/webhooks/:id for the edit form (every field is on the form). */
export function webhookPatchOf(fields: Fields): Record<string, unknown> {
  const events = SUBSCRIBABLE_EVENTS.filter((event) => fields[`event:${event}`] === "on");
  return {
    url: fields.url?.trim() ?? "",
    description: fields.description?.trim() ?? "",
    events,
    ...scopeOf(fields),
    allow_task_callbacks: fields.allow_task_callbacks === "on",
  };
}

/** The body of POST /admin/webhooks for the New endpoint form; a scope left empty is all keys. */
export function webhookInputOf(fields: Fields): Record<string, unknown> {
  const input = webhookPatchOf(fields);
  if (input.key_id === null) delete input.key_id;
  if (input.group === null) delete input.group;
  if (!input.description) delete input.description;
  return input;
}
