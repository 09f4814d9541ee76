/**
 * Search, sort and paging of `GET /admin/accounts`, as pure functions over account views. Sorts
 * by balance, spend or last use need every account's figures, so the list reads them all and
 * pages by offset (an operator's account count, not a request rate).
 */

import type { PublicAccount } from "./account_schema.ts";

export const ACCOUNT_SORTS = ["created", "name", "balance", "spend", "last_used"] as const;
export type AccountSort = (typeof ACCOUNT_SORTS)[number];

export interface AccountListQuery {
  /** Case-insensitive part of the name or id. */
  q?: string;
  group?: string;
  enabled?: boolean;
  sort?: AccountSort;
  order?: "asc" | "desc";
  limit: number;
  cursor?: string;
}

function sortValue(account: PublicAccount, sort: AccountSort): number | string {
  switch (sort) {
    case "name":
      return account.name.toLowerCase();
    case "balance":
      return account.balance;
    case "spend":
      return account.spend_today;
    case "last_used":
      return account.last_used_at ? Date.parse(account.last_used_at) : 0;
    default:
      return account.id;
  }
}

/** One page of `accounts` for `query`; the cursor is the offset of the next page. */
export function pageOfAccounts(accounts: PublicAccount[], query: AccountListQuery) {
  const q = query.q?.toLowerCase();
  const matching = accounts.filter((account) =>
    (!q || account.name.toLowerCase().includes(q) || account.id.toLowerCase().includes(q)) &&
    (query.group === undefined || account.group === query.group) &&
    (query.enabled === undefined || account.enabled === query.enabled)
  );
  const sort = query.sort ?? "created";
  const order = query.order ?? (sort === "name" || sort === "created" ? "asc" : "desc");
  const sign = order === "asc" ? 1 : -1;
  matching.sort((a, b) => {
    const x = sortValue(a, sort);
    const y = sortValue(b, sort);
    if (x < y) return -sign;
    if (x > y) return sign;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
  const offset = Math.max(0, Number.parseInt(query.cursor ?? "0", 10) || 0);
  const data = matching.slice(offset, offset + query.limit);
  const next = offset + data.length;
  return { data, cursor: next < matching.length ? String(next) : null };
}
