/**
 * The fields of the new-channel, clone and edit forms, built from the provider table
 * (core/providers/provider_table.ts): the type picker lists every row, and the fields a type
 * alone reads (a video type's resolution, an Anthropic type's version and betas) follow from
 * what its provider serves, so a new channel type appears here without a change to this file.
 * Upstream keys are never put in a page: a form has an empty box for new ones.
 */

import type { Child } from "hono/jsx";
import { CHANNEL_TYPES, type ChannelType } from "../../core/channels/channel_schema.ts";
import { describeKeyHint, type KeyHint } from "../../core/channels/key_hint.ts";
import { VIDEO_RESOLUTIONS } from "../../core/jobs/video_job.ts";
import {
  AZURE_AUTHS,
  AZURE_URL_SHAPES,
  BEDROCK_APIS,
  BEDROCK_AUTHS,
} from "../../core/channels/channel_schema.ts";
import type { Provider } from "../../core/providers/provider.ts";
import { PROVIDERS } from "../../core/providers/provider_table.ts";
import { AZURE_FIELDS } from "../../core/providers/azure_openai.ts";
import { BEDROCK_FIELDS } from "../../core/providers/bedrock.ts";
import { modelMapText } from "./channel_form.ts";
import { Field } from "./field.tsx";

/** A form's values as typed (or as a channel has them), by field name. */
export type FormValues = Record<string, string>;

/** What a type is, in a line: the kinds it serves, its base URL's form, its model list. */
export function describeType(type: ChannelType): string {
  const provider = PROVIDERS[type];
  return `${provider.kinds.join(" and ")} models; base URL like ${provider.baseUrlExample}; ` +
    (provider.modelList ? "lists its models" : "no model list to fetch");
}

/** Whether `type` is a channel type of the table (a query or form value checked). */
export function isChannelType(type: string | undefined): type is ChannelType {
  return (CHANNEL_TYPES as readonly string[]).includes(type ?? "");
}

/** The settings a type alone reads, shown when its provider serves what needs them. */
const TYPE_SETTINGS: Array<{
  applies: (provider: Provider) => boolean;
  fields: (values: FormValues, provider: Provider) => Child;
}> = [
  {
    applies: (provider) => provider.kinds.includes("video"),
    fields: (values) => (
      <Field
        name="video_resolution"
        label="Video resolution"
        value={values.video_resolution ?? ""}
        options={[["", "(the model's own)"], ...VIDEO_RESOLUTIONS.map((r) => [r, r] as const)]}
        hint="asked for when the model name carries none"
      />
    ),
  },
  {
    applies: (provider) => (provider.fields?.length ?? 0) > 0,
    fields: (values, provider) => (
      <>
        {(provider.fields ?? []).map((field) => (
          <Field
            name={field.name}
            label={field.label}
            value={values[field.name] ?? ""}
            placeholder={field.placeholder}
            options={field.options}
            hint={field.hint}
            required={field.required}
          />
        ))}
      </>
    ),
  },
  {
    applies: (provider) => provider.text?.format === "anthropic",
    fields: (values) => (
      <>
        <Field
          name="anthropic_version"
          label="anthropic-version"
          value={values.anthropic_version}
          placeholder="2023-06-01"
          hint="sent when the client sends none"
        />
        <Field
          name="anthropic_betas_allow"
          label="Betas allowed"
          value={values.anthropic_betas_allow}
          hint="comma-separated; a name or a prefix ending with *"
        />
        <Field
          name="anthropic_betas_deny"
          label="Betas denied"
          value={values.anthropic_betas_deny}
          hint="comma-separated"
        />
      </>
    ),
  },
  {
    applies: (provider) => provider.settings?.includes("send_stream_options") ?? false,
    fields: (values) => (
      <Field
        name="send_stream_options"
        label="Ask streams for usage"
        value={values.send_stream_options ?? ""}
        options={[["", "(default: yes)"], ["true", "yes"], ["false", "no (Mistral)"]]}
        hint="no: for upstreams that refuse stream_options"
      />
    ),
  },
  {
    applies: (provider) => provider.settings?.includes("api_version") ?? false,
    fields: (values) => (
      <>
        <Field
          name="url_shape"
          label="URL shape"
          value={values.url_shape ?? ""}
          options={[
            ["", "(default: deployment)"],
            ...AZURE_URL_SHAPES.map((shape) => [shape, shape] as const),
          ]}
          hint="deployment: /openai/deployments/{model map}/…; v1: /openai/v1/…"
        />
        <Field
          name="api_version"
          label="api-version"
          value={values.api_version}
          placeholder="2024-10-21"
          hint="needed by the deployment shape"
        />
        <Field
          name="azure_auth"
          label="Keys are"
          value={values.azure_auth ?? ""}
          options={[
            ["", "(default: api-key)"],
            ...AZURE_AUTHS.map((auth) => [auth, auth] as const),
          ]}
          hint="api-key; bearer: Entra ID tokens; entra: client secrets"
        />
        <Field
          name="entra_tenant_id"
          label="Entra tenant id"
          value={values.entra_tenant_id}
          hint="for keys that are client secrets"
        />
        <Field name="entra_client_id" label="Entra client id" value={values.entra_client_id} />
        <Field
          name="entra_authority"
          label="Entra authority"
          value={values.entra_authority}
          placeholder="https://login.microsoftonline.com"
        />
      </>
    ),
  },
  {
    applies: (provider) => provider.settings?.includes("bedrock_auth") ?? false,
    fields: (values) => (
      <>
        <Field
          name="region"
          label="AWS region"
          value={values.region}
          placeholder="us-east-1"
          hint="the region SigV4 signs for: the base URL's"
        />
        <Field
          name="bedrock_auth"
          label="Keys are"
          value={values.bedrock_auth ?? ""}
          options={[
            ["", "(default: sigv4)"],
            ...BEDROCK_AUTHS.map((auth) => [auth, auth] as const),
          ]}
          hint="sigv4: ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN]; api-key: Bedrock API keys"
        />
        <Field
          name="bedrock_api"
          label="API"
          value={values.bedrock_api ?? ""}
          options={[
            ["", "(default: invoke for Anthropic models, else converse)"],
            ...BEDROCK_APIS.map((api) => [api, api] as const),
          ]}
          hint="invoke: Anthropic's own bodies; converse: the Converse API, any model"
        />
      </>
    ),
  },
];

/** A channel's stored settings as form values (never its keys). */
export function formValuesOf(view: {
  name: string;
  type: string;
  base_url: string;
  models: string[];
  model_map: Record<string, string>;
  groups: string[];
  priority: number;
  weight: number;
  timeout_ms: number;
  stream_idle_ms: number;
  enabled: boolean;
  max_retries?: number;
  auto_disable_refusals?: number;
  auto_disable_after_ms?: number;
  video_resolution?: string;
  anthropic_version?: string;
  anthropic_betas?: { allow?: string[]; deny?: string[] };
  send_stream_options?: boolean;
  url_shape?: string;
  api_version?: string;
  azure_auth?: string;
  entra_tenant_id?: string;
  entra_client_id?: string;
  entra_authority?: string;
  project?: string;
  location?: string;
  vertex_publisher?: string;
  region?: string;
  bedrock_auth?: string;
  bedrock_api?: string;
  breaker?: {
    enabled?: boolean;
    min_failures?: number;
    failure_rate?: number;
    window?: number;
    cooldowns_ms?: number[];
  };
}): FormValues {
  const optional = (value: number | undefined) => value === undefined ? "" : String(value);
  return {
    name: view.name,
    type: view.type,
    base_url: view.base_url,
    models: view.models.join("\n"),
    model_map: modelMapText(view.model_map),
    groups: view.groups.join(", "),
    priority: String(view.priority),
    weight: String(view.weight),
    timeout_ms: String(view.timeout_ms),
    stream_idle_ms: String(view.stream_idle_ms),
    enabled: view.enabled ? "on" : "",
    max_retries: optional(view.max_retries),
    auto_disable_refusals: optional(view.auto_disable_refusals),
    auto_disable_after_ms: optional(view.auto_disable_after_ms),
    video_resolution: view.video_resolution ?? "",
    anthropic_version: view.anthropic_version ?? "",
    anthropic_betas_allow: view.anthropic_betas?.allow?.join(", ") ?? "",
    anthropic_betas_deny: view.anthropic_betas?.deny?.join(", ") ?? "",
    send_stream_options: view.send_stream_options === undefined
      ? ""
      : String(view.send_stream_options),
    ...Object.fromEntries(
      [...AZURE_FIELDS, ...BEDROCK_FIELDS].map((name) => [name, view[name] ?? ""]),
    ),
    project: view.project ?? "",
    location: view.location ?? "",
    vertex_publisher: view.vertex_publisher ?? "",
    breaker_enabled: view.breaker?.enabled === undefined ? "" : view.breaker.enabled ? "on" : "off",
    breaker_min_failures: optional(view.breaker?.min_failures),
    breaker_failure_rate: optional(view.breaker?.failure_rate),
    breaker_window: optional(view.breaker?.window),
    breaker_cooldowns_ms: view.breaker?.cooldowns_ms?.join(", ") ?? "",
  };
}

function Checkbox(
  { name, label, checked, hint }: { name: string; label: string; checked: boolean; hint?: string },
) {
  return (
    <div>
      <label class="choice" for={name}>
        <input type="checkbox" id={name} name={name} checked={checked} />
        {label}
      </label>
      {hint ? <small class="muted">{hint}</small> : null}
    </div>
  );
}

/**
 * The upstream-keys part: on create a box for the keys (required unless a clone keeps its
 * source's); on edit the current keys by hint, and a box whose keys are added, or replace them
 * all when "Replace" is chosen.
 */
function KeysFields(
  props: {
    mode: "create" | "edit";
    hints?: KeyHint[];
    keptKeys?: number;
    values: FormValues;
    /** The type may have no key (a local server): the box may stay empty. */
    keyless?: boolean;
    /** What the type's keys are, when not opaque secrets (a service account's JSON key). */
    keyHint?: string;
  },
) {
  if (props.mode === "create") {
    return (
      <>
        {props.keptKeys
          ? (
            <p class="muted">
              The clone keeps the source's {props.keptKeys}{" "}
              upstream key{props.keptKeys === 1 ? "" : "s"}{" "}
              (never shown); keys typed below are added to them.
            </p>
          )
          : null}
        <Field
          name="keys"
          label="Upstream keys"
          rows={3}
          autocomplete="off"
          required={!props.keptKeys && !props.keyless}
          hint={(props.keyHint ?? "one per line; sealed when saved and never shown again") +
            (props.keyless ? "; none for a server that takes no key" : "")}
        />
      </>
    );
  }
  const replace = props.values.keys_mode === "replace";
  return (
    <fieldset>
      <legend>Upstream keys</legend>
      <p class="muted">
        Now:{" "}
        {props.hints?.length ? props.hints.map((hint) => describeKeyHint(hint)).join(", ") : "none"}
      </p>
      <Field
        name="keys"
        label="New upstream keys"
        rows={2}
        autocomplete="off"
        hint={props.keyHint
          ? `${props.keyHint}; leave empty to keep the keys as they are`
          : "one per line; leave empty to keep the keys as they are"}
      />
      <label class="choice">
        <input type="radio" name="keys_mode" value="add" checked={!replace} />
        Add them to the channel's keys
      </label>
      <label class="choice">
        <input type="radio" name="keys_mode" value="replace" checked={replace} />
        Replace every key with them
      </label>
    </fieldset>
  );
}

/** The breaker settings (core/channels/breakers.ts); any one given sends them all. */
function BreakerFields({ values }: { values: FormValues }) {
  return (
    <fieldset>
      <legend>Breaker</legend>
      <div class="fields">
        <Field
          name="breaker_enabled"
          label="Breaker"
          value={values.breaker_enabled ?? ""}
          options={[["", "(default: on)"], ["on", "on"], ["off", "off"]]}
        />
        <Field
          name="breaker_min_failures"
          label="Opens after failures"
          value={values.breaker_min_failures}
          inputmode="numeric"
        />
        <Field
          name="breaker_failure_rate"
          label="And a failure rate of"
          value={values.breaker_failure_rate}
          hint="0 to 1"
        />
        <Field
          name="breaker_window"
          label="Among the last attempts"
          value={values.breaker_window}
          inputmode="numeric"
        />
        <Field
          name="breaker_cooldowns_ms"
          label="Cooldowns (ms)"
          value={values.breaker_cooldowns_ms}
          hint="comma-separated; the last repeats"
        />
      </div>
    </fieldset>
  );
}

/** Every field of a channel form for a channel of `type`. */
export function ChannelFields(
  props: {
    type: ChannelType;
    mode: "create" | "edit";
    values: FormValues;
    hints?: KeyHint[];
    keptKeys?: number;
  },
) {
  const { type, mode, values } = props;
  const provider = PROVIDERS[type];
  const typeSettings = TYPE_SETTINGS.filter((setting) => setting.applies(provider));
  return (
    <div class="channel-form">
      <input type="hidden" name="type" value={type} />
      <div class="fields">
        <Field name="name" label="Name" value={values.name} required />
        <Field
          name="base_url"
          label="Base URL"
          value={values.base_url}
          placeholder={provider.baseUrlExample}
          hint={`as the provider's SDK takes it, e.g. ${provider.baseUrlExample}`}
          required
        />
        <Field
          name="groups"
          label="Groups"
          value={values.groups}
          placeholder="default"
          hint="comma-separated; empty: default"
        />
        <Field
          name="priority"
          label="Priority"
          value={values.priority}
          placeholder="0"
          inputmode="numeric"
          hint="higher is tried first"
        />
        <Field
          name="weight"
          label="Weight"
          value={values.weight}
          placeholder="1"
          inputmode="numeric"
          hint="share among equal priority"
        />
        <Field
          name="timeout_ms"
          label="Timeout (ms)"
          value={values.timeout_ms}
          placeholder="120000"
          inputmode="numeric"
        />
        {typeSettings.map((setting) => setting.fields(values, provider))}
      </div>
      <KeysFields
        mode={mode}
        hints={props.hints}
        keptKeys={props.keptKeys}
        values={values}
        keyless={provider.keyless}
        keyHint={provider.keyForm?.hint}
      />
      <div class="fields">
        <Field
          name="models"
          label="Models"
          rows={4}
          value={values.models}
          hint={`catalog ids (${provider.kinds.join(" or ")}), one per line or comma-separated`}
        />
        <Field
          name="model_map"
          label="Model map"
          rows={4}
          value={values.model_map}
          hint="one 'public name = upstream name' a line; a model not mapped keeps its name"
        />
      </div>
      <Checkbox
        name="create_models"
        label="Add models the catalog lacks"
        checked={values.create_models === "on"}
        hint="created disabled at price 0 until priced on the Models page"
      />
      {mode === "create"
        ? <Checkbox name="enabled" label="Enabled" checked={values.enabled !== ""} />
        : null}
      <details>
        <summary>More settings</summary>
        <div class="fields">
          <Field
            name="stream_idle_ms"
            label="Stream idle limit (ms)"
            value={values.stream_idle_ms}
            placeholder="60000"
            inputmode="numeric"
          />
          <Field
            name="max_retries"
            label="Retries on other channels"
            value={values.max_retries}
            inputmode="numeric"
            hint="empty: the request's default"
          />
          <Field
            name="auto_disable_refusals"
            label="Disable a key after refusals"
            value={values.auto_disable_refusals}
            placeholder="3"
            inputmode="numeric"
            hint="401/403 in a row; 0: never"
          />
          <Field
            name="auto_disable_after_ms"
            label="Disable after failing for (ms)"
            value={values.auto_disable_after_ms}
            placeholder="300000"
            inputmode="numeric"
            hint="0: never"
          />
        </div>
        <BreakerFields values={values} />
        <p class="muted">
          A blank field keeps its default (on create) or its value (on edit).
        </p>
      </details>
    </div>
  );
}
