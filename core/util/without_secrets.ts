/**
 * A record's public view made safe to keep or show: every secret-named field dropped and every
 * string redacted. Views given to it are public already (no hashes, no sealed keys); this is the
 * second guard, so a field added later cannot leak through the audit log or a self-view.
 */

import { redactSecrets } from "./redact.ts";

/**
 * Field names never kept: secrets shown once (`key` on key creation or rotation), hashes, sealed
 * or clear upstream keys, tokens, passwords, single-use links (invitations, resets) and sign-up
 * codes.
 */
const SECRET_FIELD =
  /^(key|keys|secret|secrets|sealed_keys|password|token|link|signup_code)$|hash|secret|_token$/i;

/** `value` without secret-named fields, its strings redacted; a copy, JSON-shaped. */
export function withoutSecrets(value: unknown): unknown {
  if (typeof value === "string") return redactSecrets(value);
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value === null || typeof value !== "object") return value ?? null;
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(value)) {
    if (SECRET_FIELD.test(name) || field === undefined) continue;
    out[name] = withoutSecrets(field);
  }
  return out;
}

/** JSON with object keys sorted, so two views compare equal whatever their key order. */
export function stableJson(value: unknown): string {
  return JSON.stringify(
    value,
    (_name, field) =>
      field && typeof field === "object" && !Array.isArray(field)
        ? Object.fromEntries(Object.entries(field).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))
        : field,
  );
}
