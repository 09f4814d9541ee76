/**
 * The key forms' fields turned into the admin API's JSON (then validated by the same schemas):
 * empty fields are left out, money (balance, spend caps) is typed in currency and sent as units,
 * other numbers are read as integers, models as a comma-separated list,
 * the IP allowlist one range per line or comma-separated, times from `datetime-local` as UTC.
 */

import { unitsOrText } from "./currency_units.ts";

type Fields = Record<string, string>;

export const IP_ALLOWLIST_HINT =
  "addresses or CIDR ranges (203.0.113.0/24, 2001:db8::/32), one per line or comma-separated; " +
  "empty allows every address";

function integerOrText(value: string): number | string {
  return /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value;
}

function utcTime(value: string): string {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value) ? `${value}:00Z` : value;
}

/**
 * The body of POST /admin/keys for the New key form. An empty `account_id` (the default) makes
 * an account of its own; a chosen one is sent, and so is any balance or group typed beside it,
 * for the API's own check to refuse.
 */
export function keyInputOf(fields: Fields): Record<string, unknown> {
  const input: Record<string, unknown> = { ...keyPatchOf(fields) };
  const accountId = fields.account_id?.trim();
  if (accountId) input.account_id = accountId;
  const balance = fields.balance?.trim();
  if (balance) input.balance = unitsOrText(balance);
  return input;
}

/** The body of PATCH /admin/keys/:id for the edit form; an empty optional field clears it. */
export function keyPatchOf(fields: Fields, options: { clearEmpty?: boolean } = {}) {
  const patch: Record<string, unknown> = {};
  const text = (name: string) => fields[name]?.trim() ?? "";
  if (text("name")) patch.name = text("name");
  if (text("group")) patch.group = text("group");
  const nullable = (name: string, value: unknown) => {
    if (value !== "" && value !== undefined) patch[name] = value;
    else if (options.clearEmpty && name in fields) patch[name] = null;
  };
  nullable(
    "models",
    text("models") && text("models").split(",").map((model) => model.trim()).filter(Boolean),
  );
  nullable(
    "ip_allowlist",
    text("ip_allowlist") && text("ip_allowlist").split(/[\s,]+/).filter(Boolean),
  );
  nullable("expires_at", text("expires_at") && utcTime(text("expires_at")));
  nullable("rpm", text("rpm") && integerOrText(text("rpm")));
  nullable("tpm", text("tpm") && integerOrText(text("tpm")));
  const caps: Record<string, unknown> = {};
  for (const period of ["day", "week", "month"]) {
    const value = text(`cap_${period}`);
    if (value) caps[period] = unitsOrText(value);
  }
  const capFields = ["cap_day", "cap_week", "cap_month"].some((name) => name in fields);
  if (Object.keys(caps).length) patch.spend_limits = caps;
  else if (options.clearEmpty && capFields) patch.spend_limits = null;
  return patch;
}
