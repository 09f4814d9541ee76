/**
 * Filters and sorts of `GET /admin/keys`, as pure functions over key records. Sorting by spend
 * or last use pages with a keyset cursor: the sort value and id of the last key shown.
 */

import type { ListOptions } from "../kv/list_options.ts";
import type { KeyRecord } from "./key_schema.ts";

export const KEY_SORTS = ["created", "spend", "last_used"] as const;
export type KeySort = (typeof KEY_SORTS)[number];

/** Which keys a list shows; every given filter must match. */
export interface KeyFilter {
  name_prefix?: string;
  /** Keys of this account. */
  account_id?: string;
  group?: string;
  enabled?: boolean;
  /** Keys with an expiry before this time (epoch ms); keys that never expire do not match. */
  expires_before?: number;
}

/** A list of keys: its page, filters and sort (`created` by default, the id order). */
export interface KeyListQuery extends ListOptions, KeyFilter {
  sort?: KeySort;
}

/** Whether `record` passes every filter of `filter`. */
export function matchesKeyFilter(record: KeyRecord, filter: KeyFilter): boolean {
  if (filter.name_prefix !== undefined && !record.name.startsWith(filter.name_prefix)) {
    return false;
  }
  if (filter.group !== undefined && record.group !== filter.group) return false;
  if (filter.account_id !== undefined && record.account_id !== filter.account_id) return false;
  if (filter.enabled !== undefined && record.enabled !== filter.enabled) return false;
  if (filter.expires_before !== undefined) {
    if (record.expires_at === null || Date.parse(record.expires_at) >= filter.expires_before) {
      return false;
    }
  }
  return true;
}

/** One key with the number it is sorted by. */
export interface SortedKey {
  id: string;
  value: number;
}

/** `rows` in `order` of value, ties by id the same way. */
export function sortKeys(rows: SortedKey[], order: "asc" | "desc"): SortedKey[] {
  const sign = order === "asc" ? 1 : -1;
  return [...rows].sort((a, b) =>
    sign * (a.value - b.value || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  );
}

/** The keyset cursor after `row`. */
export function encodeSortCursor(row: SortedKey): string {
  return new TextEncoder().encode(JSON.stringify([row.value, row.id])).toBase64({
    alphabet: "base64url",
    omitPadding: true,
  });
}

/**
 * The row a keyset cursor points after. A cursor this list did not give throws the TypeError
 * KV throws for a foreign cursor, so the route answers the same 400.
 */
export function decodeSortCursor(cursor: string): SortedKey {
  try {
    const [value, id] = JSON.parse(
      new TextDecoder().decode(Uint8Array.fromBase64(cursor, { alphabet: "base64url" })),
    );
    if (typeof value === "number" && typeof id === "string") return { value, id };
  } catch {
    // answered below
  }
  throw new TypeError("invalid cursor");
}

/** The page of sorted `rows` after `cursor`, and the cursor of the page after it. */
export function pageOfSorted(
  rows: SortedKey[],
  options: Pick<ListOptions, "cursor" | "limit" | "order">,
): { page: SortedKey[]; cursor: string | null } {
  let start = 0;
  if (options.cursor !== undefined) {
    const after = decodeSortCursor(options.cursor);
    const sign = options.order === "asc" ? 1 : -1;
    const index = rows.findIndex((row) =>
      sign * (row.value - after.value || (row.id < after.id ? -1 : row.id > after.id ? 1 : 0)) > 0
    );
    start = index === -1 ? rows.length : index;
  }
  const page = rows.slice(start, start + options.limit);
  const more = start + options.limit < rows.length;
  return { page, cursor: more ? encodeSortCursor(page.at(-1)!) : null };
}
