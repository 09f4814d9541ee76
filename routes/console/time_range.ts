/** The `since`/`until` of a console list: `datetime-local` inputs, read as UTC. */

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
  const zoned = value.endsWith("Z") || /[+-]\d{2}:\d{2}$/.test(value);
  const ms = Date.parse(zoned ? value : `${value}Z`);
  return Number.isNaN(ms) ? "" : new Date(ms).toISOString().slice(0, 16);
}
