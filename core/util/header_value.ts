/**
 * Response header values built from what clients or upstreams sent. Deno refuses NUL, CR, LF and
 * characters above U+00FF in a header value (a TypeError, so a 500), and its HTTP server panics
 * on the other control characters (the whole process dies): so such text is encoded or dropped
 * here, never written raw.
 */

/** What Deno's HTTP server writes without failing: tab, space, visible ASCII and obs-text. */
const WRITABLE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** What a header-list item keeps as it is: visible ASCII but `%` (the escape) and `,` (the separator). */
const KEPT = /^[\x21-\x24\x26-\x2b\x2d-\x7e]*$/;

/** An IMF-fixdate, the HTTP-date form senders write (RFC 9110 §5.6.7). */
const HTTP_DATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/** Longest `x-gateway-ignored-fields` value; past it the rest is counted, not named. */
export const MAX_HEADER_LIST_CHARS = 4_096;

const utf8 = new TextEncoder();

/** Whether `value` can be written as a response header value without failing. */
export function isWritableHeaderValue(value: string): boolean {
  return WRITABLE.test(value);
}

/**
 * One item of a comma-separated list header: visible ASCII as it is, every other character
 * (space, controls, `%`, `,`, non-ASCII) percent-encoded as its UTF-8 bytes, so that
 * `decodeURIComponent` gives the name back (a lone surrogate comes back as U+FFFD).
 */
export function headerListItem(text: string): string {
  if (KEPT.test(text)) return text;
  let out = "";
  for (const char of text) {
    if (KEPT.test(char)) {
      out += char;
      continue;
    }
    for (const byte of utf8.encode(char)) {
      out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
    }
  }
  return out;
}

/**
 * A comma-separated list header of `items`, each encoded by `headerListItem`, at most
 * `maxChars` long: when they do not all fit, the first that do are followed by a last item
 * `+N more` counting the others (its space tells it from a name, whose spaces are encoded).
 */
export function headerList(items: readonly string[], maxChars = MAX_HEADER_LIST_CHARS): string {
  const encoded = items.map(headerListItem);
  const total = encoded.reduce((sum, item) => sum + item.length, 0) + encoded.length - 1;
  if (total <= maxChars) return encoded.join(",");
  const kept: string[] = [];
  let length = 0;
  for (const item of encoded) {
    const next = length + (kept.length ? 1 : 0) + item.length;
    const more = `,+${encoded.length - kept.length - 1} more`;
    if (next + more.length > maxChars) break;
    kept.push(item);
    length = next;
  }
  return [...kept, `+${encoded.length - kept.length} more`].join(",");
}

/**
 * A `retry-after` value an upstream sent, as clients may be given it: delay-seconds or an
 * HTTP-date (re-rendered), anything else dropped.
 */
export function retryAfterValue(value: string | null | undefined): string | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d{1,10}$/.test(text)) return text;
  if (!HTTP_DATE.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isFinite(at) ? new Date(at).toUTCString() : undefined;
}
