/** The fields of the New endpoint and edit forms, filled from an endpoint or a sent form. */

import { SUBSCRIBABLE_EVENTS, TASK_EVENTS } from "../../core/webhooks/endpoint_schema.ts";
import { type Choice, Datalists, pickerListId } from "./pickers.tsx";
import { Field } from "./field.tsx";

/** What the fields show: the form's strings, as sent or as an endpoint reads. */
export type WebhookFormValues = Record<string, string>;

/** The form values of an endpoint (for the edit form). */
export function webhookFormValues(endpoint: {
  url: string;
  description: string;
  events: readonly string[];
  key_id: string | null;
  group: string | null;
  allow_task_callbacks: boolean;
}): WebhookFormValues {
  const values: WebhookFormValues = {
    url: endpoint.url,
    description: endpoint.description,
    scope: endpoint.key_id ? "key" : endpoint.group ? "group" : "all",
    key_id: endpoint.key_id ?? "",
    group: endpoint.group ?? "",
  };
  for (const event of endpoint.events) values[`event:${event}`] = "on";
  if (endpoint.allow_task_callbacks) values.allow_task_callbacks = "on";
  return values;
}

export function WebhookFields(
  { values, prefix, keyChoices }: {
    values: WebhookFormValues;
    prefix: string;
    /** Keys offered in the key id field as one types (a datalist: no script). */
    keyChoices?: Choice[];
  },
) {
  const id = (name: string) => `${prefix}-${name}`;
  const scope = values.scope ?? "all";
  const newForm = Object.keys(values).length === 0;
  return (
    <div class="fields">
      <Field
        name="url"
        id={id("url")}
        label="URL"
        type="url"
        required
        value={values.url ?? ""}
        hint="https://… ; private and loopback addresses are refused unless the operator allows them"
      />
      <Field
        name="description"
        id={id("description")}
        label="Description"
        value={values.description ?? ""}
      />
      <fieldset>
        <legend>Events</legend>
        {SUBSCRIBABLE_EVENTS.map((event) => (
          <label class="choice">
            <input
              type="checkbox"
              name={`event:${event}`}
              checked={newForm
                ? (TASK_EVENTS as readonly string[]).includes(event)
                : values[`event:${event}`] === "on"}
            />{" "}
            <code>{event}</code>
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>Tasks of</legend>
        <label class="choice">
          <input type="radio" name="scope" value="all" checked={scope === "all"} /> every key
        </label>
        <label class="choice">
          <input type="radio" name="scope" value="group" checked={scope === "group"} /> the group
        </label>
        <label class="choice">
          <input type="radio" name="scope" value="key" checked={scope === "key"} /> the key
        </label>
        <Field name="group" id={id("group")} label="Group" value={values.group ?? ""} />
        <Field
          name="key_id"
          id={id("key_id")}
          label="Key id"
          value={values.key_id ?? ""}
          placeholder="key_…"
          list={keyChoices ? pickerListId(id("key_id")) : undefined}
          hint={keyChoices ? "type a key's name or id to pick it" : undefined}
        />
        {keyChoices ? <Datalists lists={{ [id("key_id")]: keyChoices }} /> : null}
      </fieldset>
      <div>
        <label class="choice">
          <input
            type="checkbox"
            name="allow_task_callbacks"
            checked={values.allow_task_callbacks === "on"}
          />
          <span>
            Allow a task's own <code>callback_url</code> (signed with this endpoint's secret)
          </span>
        </label>
      </div>
    </div>
  );
}
