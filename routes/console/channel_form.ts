/**
 * The console's channel forms as the admin API's bodies (POST /admin/channels, PATCH
 * /admin/channels/{id}): pure conversion, no checking beyond reading the text (the admin schema
 * checks the result, so a bad value gets the API's own message). A blank optional field is left
 * out: on create it takes the API's default, on edit it stays as it is.
 */

import { GatewayError } from "../../core/errors.ts";
import { AZURE_FIELDS } from "../../core/providers/azure_openai.ts";
import { BEDROCK_FIELDS } from "../../core/providers/bedrock.ts";

/** A whole number as a number; anything else as it was typed, for the schema to refuse. */
function integerOf(text: string): number | string {
  return /^-?\d+$/.test(text.trim()) ? Number(text.trim()) : text;
}

/** A comma- or newline-separated list, blanks dropped. */
export function listOf(text: string): string[] {
  return text.split(/[,\n]/).map((item) => item.trim()).filter(Boolean);
}

/**
 * The upstream keys typed in a key box: one a line (or comma-separated), or, when the box holds
 * JSON objects (a vertex channel's service account key files), each object whole.
 */
export function keysOf(text: string): string[] {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{")) return listOf(text);
  const keys: string[] = [];
  let depth = 0;
  let start = 0;
  let inString = false;
  for (let at = 0; at < trimmed.length; at++) {
    const char = trimmed[at];
    if (inString) {
      if (char === "\\") at++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === "{" && depth++ === 0) start = at;
    else if (char === "}" && --depth === 0) keys.push(trimmed.slice(start, at + 1));
  }
  // Unbalanced: sent as typed, for the API to name what is wrong with it.
  return depth === 0 && keys.length ? keys : [trimmed];
}

/**
 * A model map typed one pair a line, `public name = upstream name`. A line without `=` is refused
 * with its number, since the schema would only see the map.
 */
export function modelMapOf(text: string): Record<string, string> {
  const map: Record<string, string> = {};
  text.split("\n").forEach((line, index) => {
    if (line.trim() === "") return;
    const at = line.indexOf("=");
    if (at < 0) {
      throw new GatewayError(
        "invalid_model_map",
        400,
        `model_map line ${index + 1} ('${line.trim().slice(0, 80)}') is not 'public name = ` +
          `upstream name'`,
        { param: "model_map" },
      );
    }
    map[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  });
  return map;
}

/** The model map as the form shows it, one `public = upstream` a line. */
export function modelMapText(map: Record<string, string>): string {
  return Object.entries(map).map(([name, upstream]) => `${name} = ${upstream}`).join("\n");
}

/** Integer fields a blank leaves out. */
const INTEGER_FIELDS = [
  "priority",
  "weight",
  "timeout_ms",
  "stream_idle_ms",
  "max_retries",
  "auto_disable_refusals",
  "auto_disable_after_ms",
] as const;

/** Text fields only some types read (the provider table's `fields`); a blank leaves them out. */
const TYPE_TEXT_FIELDS = ["project", "location", "vertex_publisher"] as const;

/** The fields both forms share: each one sent when the form has it and it is not blank. */
function settingsOf(fields: Record<string, string>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const given = (name: string) => name in fields && fields[name].trim() !== "";
  if ("name" in fields) body.name = fields.name.trim();
  if ("base_url" in fields) body.base_url = fields.base_url.trim();
  for (const name of INTEGER_FIELDS) {
    if (given(name)) body[name] = integerOf(fields[name]);
  }
  if (given("groups")) body.groups = listOf(fields.groups);
  if ("models" in fields) body.models = listOf(fields.models);
  if ("model_map" in fields) body.model_map = modelMapOf(fields.model_map);
  if (given("video_resolution")) body.video_resolution = fields.video_resolution.trim();
  if (given("anthropic_version")) body.anthropic_version = fields.anthropic_version.trim();
  if (given("send_stream_options")) {
    const value = fields.send_stream_options.trim();
    body.send_stream_options = value === "true" ? true : value === "false" ? false : value;
  }
  // Azure's and Bedrock's settings and the provider table's text fields: sent as typed.
  for (const name of [...AZURE_FIELDS, ...BEDROCK_FIELDS, ...TYPE_TEXT_FIELDS]) {
    if (given(name)) body[name] = fields[name].trim();
  }
  if (given("anthropic_betas_allow") || given("anthropic_betas_deny")) {
    body.anthropic_betas = {
      ...(given("anthropic_betas_allow") && { allow: listOf(fields.anthropic_betas_allow) }),
      ...(given("anthropic_betas_deny") && { deny: listOf(fields.anthropic_betas_deny) }),
    };
  }
  const breaker = breakerOf(fields);
  if (breaker) body.breaker = breaker;
  if (fields.create_models === "on") body.create_models = true;
  return body;
}

/**
 * The breaker settings, sent whole when any is given (the API replaces the object): `on`/`off`
 * for enabled, whole numbers, a rate, and the cooldowns as a comma list of milliseconds.
 */
function breakerOf(fields: Record<string, string>): Record<string, unknown> | undefined {
  const text = (name: string) => (fields[`breaker_${name}`] ?? "").trim();
  const breaker: Record<string, unknown> = {};
  const enabled = text("enabled");
  if (enabled) breaker.enabled = enabled === "on" ? true : enabled === "off" ? false : enabled;
  for (const name of ["min_failures", "window"]) {
    if (text(name)) breaker[name] = integerOf(text(name));
  }
  if (text("failure_rate")) {
    const rate = Number(text("failure_rate"));
    breaker.failure_rate = Number.isFinite(rate) ? rate : text("failure_rate");
  }
  if (text("cooldowns_ms")) breaker.cooldowns_ms = listOf(text("cooldowns_ms")).map(integerOf);
  return Object.keys(breaker).length ? breaker : undefined;
}

/**
 * The POST body of the new-channel form. `keptKeys` are a cloned channel's keys (opened on the
 * server, never put in the page), sent before the keys typed.
 */
export function channelCreateOf(
  fields: Record<string, string>,
  keptKeys: readonly string[] = [],
): Record<string, unknown> {
  return {
    type: fields.type ?? "",
    ...settingsOf(fields),
    keys: [...keptKeys, ...keysOf(fields.keys ?? "")],
    enabled: fields.enabled === "on",
  };
}

/**
 * The PATCH body of an edit form: every field it shows. Upstream keys typed there are added to
 * the channel's, or replace them all with `keys_mode=replace`; none typed leaves them.
 */
export function channelPatchOf(fields: Record<string, string>): Record<string, unknown> {
  const patch = settingsOf(fields);
  if ("groups" in fields && !("groups" in patch)) patch.groups = [];
  const keys = keysOf(fields.keys ?? "");
  if (keys.length) patch[fields.keys_mode === "replace" ? "keys" : "add_keys"] = keys;
  return patch;
}

/** The PATCH body of the upstream-keys form: add one key, replace all, or remove one. */
export function channelKeysPatchOf(fields: Record<string, string>): Record<string, unknown> {
  if (fields.action === "replace") return { keys: keysOf(fields.keys ?? "") };
  if (fields.action === "remove") return { remove_keys: [fields.fingerprint ?? ""] };
  return { add_keys: [(fields.key ?? "").trim()].filter(Boolean) };
}
