/**
 * A member's key form (New key, and Edit on a key's page): name, models as a multiple select of
 * the account's models, expiry, spend caps, RPM, TPM, IP allowlist and (new keys) enabled. The
 * values shown are the member's own on a refused form, else the key's.
 */

import type { ConsoleContext } from "./console_env.ts";
import { currencyOfUnits } from "./currency_units.ts";
import { Field } from "./field.tsx";
import { IP_ALLOWLIST_HINT } from "./key_form.ts";
import { CsrfField } from "./layout.tsx";

export interface MemberKeyFormProps {
  c: ConsoleContext;
  action: string;
  /** The account's models, offered. */
  models: readonly string[];
  /** The models chosen. */
  chosen: readonly string[];
  fields: Record<string, string>;
  /** New keys have an Enabled box; an existing key has Disable/Enable on its page. */
  isNew: boolean;
  submit: string;
  /** The ids' prefix, so two forms of a page never share one. */
  idPrefix?: string;
}

export function MemberKeyForm(props: MemberKeyFormProps) {
  const { fields, idPrefix = "" } = props;
  const field = (name: string, label: string, type = "text", hint?: string) => (
    <Field
      name={name}
      id={`${idPrefix}${name}`}
      label={label}
      type={type}
      value={fields[name] ?? ""}
      hint={hint}
      required={name === "name"}
      min={type === "number" ? "1" : undefined}
    />
  );
  const chosen = new Set(props.chosen);
  const currency = props.c.get("money").format.currency;
  const modelsId = `${idPrefix}models`;
  return (
    <form method="post" action={props.action}>
      <CsrfField session={props.c.get("session")} />
      <div class="fields">
        {field("name", "Name")}
        <div>
          <label for={modelsId}>Models</label>
          <select
            id={modelsId}
            name="models"
            multiple
            size={Math.min(8, Math.max(3, props.models.length))}
            aria-describedby={`${modelsId}-hint`}
          >
            {props.models.map((model) => (
              <option {...{ value: model, selected: chosen.has(model) }}>{model}</option>
            ))}
          </select>
          <small id={`${modelsId}-hint`} class="muted">
            None chosen: every model of the account
          </small>
        </div>
        <Field
          name="ip_allowlist"
          id={`${idPrefix}ip_allowlist`}
          label="IP allowlist"
          value={fields.ip_allowlist ?? ""}
          rows={3}
          hint={IP_ALLOWLIST_HINT}
        />
        {field("expires_at", "Expires (UTC)", "datetime-local", "empty: never")}
        {field("rpm", "Requests per minute (RPM)", "number", "empty: no limit")}
        {field("tpm", "Tokens per minute (TPM)", "number", "empty: no limit")}
        {field("cap_day", `Spend cap per day (${currency})`, "text", "e.g. 5.00; empty: none")}
        {field("cap_week", `Spend cap per week (${currency})`, "text", "empty: none")}
        {field("cap_month", `Spend cap per month (${currency})`, "text", "empty: none")}
        {props.isNew
          ? (
            <div>
              <input
                {...{
                  id: `${idPrefix}enabled`,
                  name: "enabled",
                  type: "checkbox",
                  value: "true",
                  checked: fields.enabled !== "false",
                }}
              />{" "}
              <label for={`${idPrefix}enabled`} class="inline">Enabled</label>
            </div>
          )
          : null}
      </div>
      <p>
        <button type="submit">{props.submit}</button>
      </p>
    </form>
  );
}

/** The form's values of a key, as its inputs show them. */
export function keyFormFields(key: {
  name: string;
  ip_allowlist: string[] | null;
  expires_at: string | null;
  rpm: number | null;
  tpm: number | null;
  spend_limits: { day?: number; week?: number; month?: number } | null;
}): Record<string, string> {
  const text = (value: number | undefined | null) => value == null ? "" : String(value);
  const money = (units: number | undefined) => units === undefined ? "" : currencyOfUnits(units);
  return {
    name: key.name,
    ip_allowlist: key.ip_allowlist?.join("\n") ?? "",
    expires_at: key.expires_at?.slice(0, 16) ?? "",
    rpm: text(key.rpm),
    tpm: text(key.tpm),
    cap_day: money(key.spend_limits?.day),
    cap_week: money(key.spend_limits?.week),
    cap_month: money(key.spend_limits?.month),
  };
}
