/** Paging, order and time range of admin lists, and the KV selectors they become. */

/** How an admin list is read: newest first unless `order` is `asc`; `since`/`until` in ms. */
export interface ListOptions {
  cursor?: string;
  limit: number;
  order: "asc" | "desc";
  /** Inclusive lower bound, epoch ms. */
  since?: number;
  /** Inclusive upper bound, epoch ms. */
  until?: number;
}

/** The first 9 characters after `prefix_` of a time-ordered id (see `timeOrderedId`) for `ms`. */
export function idTimeBound(idPrefix: string, ms: number): string {
  return `${idPrefix}_${Math.max(0, Math.floor(ms)).toString(36).padStart(9, "0")}`;
}

/**
 * A KV selector over `prefix` whose next key part orders by time, limited to
 * [`since`, `until`]. `boundOf(ms)` is the smallest key part written at `ms`.
 */
export function timeRangeSelector(
  prefix: Deno.KvKey,
  boundOf: (ms: number) => Deno.KvKeyPart,
  range: Pick<ListOptions, "since" | "until">,
): Deno.KvListSelector {
  const start = range.since === undefined ? undefined : [...prefix, boundOf(range.since)];
  const end = range.until === undefined ? undefined : [...prefix, boundOf(range.until + 1)];
  if (start && end) return { start, end };
  if (start) return { prefix, start };
  if (end) return { prefix, end };
  return { prefix };
}

/** The KV list options for `options`. */
export function kvListOptions(options: ListOptions): Deno.KvListOptions {
  return { cursor: options.cursor, limit: options.limit, reverse: options.order === "desc" };
}
