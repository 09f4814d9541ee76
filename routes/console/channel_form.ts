/**
 * The console's channel forms as the admin API's PATCH body: pure conversion, no checking (the
 * admin schema checks the result, so a bad value gets the API's own message).
 */

/** A whole number as a number; anything else as it was typed, for the schema to refuse. */
function integerOf(text: string): number | string {
  return /^-?\d+$/.test(text.trim()) ? Number(text.trim()) : text;
}

/** A comma- or newline-separated list, blanks dropped. */
export function listOf(text: string): string[] {
  return text.split(/[,\n]/).map((item) => item.trim()).filter(Boolean);
}

/** The PATCH body of the edit form: every field it shows. */
export function channelPatchOf(fields: Record<string, string>): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  if ("name" in fields) patch.name = fields.name.trim();
  if ("base_url" in fields) patch.base_url = fields.base_url.trim();
  if ("priority" in fields) patch.priority = integerOf(fields.priority);
  if ("weight" in fields) patch.weight = integerOf(fields.weight);
  if ("timeout_ms" in fields) patch.timeout_ms = integerOf(fields.timeout_ms);
  if ("groups" in fields) patch.groups = listOf(fields.groups);
  if ("models" in fields) patch.models = listOf(fields.models);
  return patch;
}

/** The PATCH body of the upstream-keys form: add one key, replace all, or remove one. */
export function channelKeysPatchOf(fields: Record<string, string>): Record<string, unknown> {
  if (fields.action === "replace") return { keys: listOf(fields.keys ?? "") };
  if (fields.action === "remove") return { remove_keys: [fields.fingerprint ?? ""] };
  return { add_keys: [(fields.key ?? "").trim()].filter(Boolean) };
}
