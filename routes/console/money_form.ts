/** The Money page's form as the body of PATCH /admin/settings/money. Pure. */

/** `currency` upper-cased (a code typed `eur` is EUR); `decimals` a number when it is digits. */
export function moneyPatchOf(fields: Record<string, string>): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  const currency = fields.currency?.trim();
  if (currency) patch.currency = currency.toUpperCase();
  const decimals = fields.decimals?.trim();
  if (decimals) patch.decimals = /^\d{1,3}$/.test(decimals) ? Number(decimals) : decimals;
  return patch;
}
