/** The query string of a console list without empty fields, for its curl and its next page. */
export function listQuery(url: URL, cursor?: string | null): string {
  const params = new URLSearchParams();
  for (const [name, value] of url.searchParams) {
    if (value && name !== "cursor") params.set(name, value);
  }
  if (cursor) params.set("cursor", cursor);
  const text = params.toString();
  return text ? `?${text}` : "";
}
