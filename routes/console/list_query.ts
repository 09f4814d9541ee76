/** The query string of a console list page: kept for the next page, the curl and the export. */

/** `url`'s non-empty parameters (without `cursor` and any of `drop`), then `cursor` if given. */
export function listQuery(
  url: URL,
  options: { cursor?: string | null; drop?: readonly string[] } = {},
): string {
  const params = new URLSearchParams();
  for (const [name, value] of url.searchParams) {
    if (value && name !== "cursor" && !options.drop?.includes(name)) params.set(name, value);
  }
  if (options.cursor) params.set("cursor", options.cursor);
  const text = params.toString();
  return text ? `?${text}` : "";
}

const MINUTES = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/;

/**
 * `url` with `since`/`until` as a `datetime-local` input sends them (`2026-11-24T10:00`, no zone)
 * read as UTC, as the form's labels say; the admin API would otherwise read them as server-local.
 */
export function withUtcTimes(url: URL): URL {
  const copy = new URL(url);
  for (const name of ["since", "until"]) {
    const value = copy.searchParams.get(name);
    if (value && MINUTES.test(value)) copy.searchParams.set(name, `${value}:00Z`);
  }
  return copy;
}

/** A `datetime-local` input's value for an ISO time in the query (its UTC minutes). */
export function minutesOf(value: string | null): string {
  if (!value) return "";
  const ms = Date.parse(
    value.endsWith("Z") || /[+-]\d{2}:\d{2}$/.test(value) ? value : `${value}Z`,
  );
  return Number.isNaN(ms) ? "" : new Date(ms).toISOString().slice(0, 16);
}
