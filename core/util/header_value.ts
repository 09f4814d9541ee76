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
 * `maxChars` long: the items that do not fit are counted in a last item `+N more` (its space
 * tells it from a name, whose spaces are encoded).
 */
export function headerList(items: readonly string[], maxChars = MAX_HEADER_LIST_CHARS): string {
  const kept: string[] = [];
  let length = 0;
  for (const [index, item] of items.entries()) {
    const encoded = headerListItem(item);
    const left = items.length - index;
    // Room for this item and, unless it is the last, for the `,+N more` that may follow it.
    const tail = left > 1 ? `,+${left - 1} more`.length : 0;
    if (length + (kept.length ? 1 : 0) + encoded.length + tail > maxChars) {
      kept.push(`+${left} more`);
      break;
    }
    kept.push(encoded);
    length += (kept.length > 1 ? 1 : 0) + encoded.length;
  }
  return kept.join(",");
}

/**
 * A `retry-after` value an upstream sent, as clients may be given it: delay-seconds or an
 * HTTP-date (re-rendered), anything else dropped.
 */
export function retryAfterValue(value: string | null | undefined): string | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d{1,10}$/.test(text)) return text;
  if (!isWritableHeaderValue(text) || text.length > 64) return undefined;
  const at = Date.parse(text);
  return Number.isFinite(at) ? new Date(at).toUTCString() : undefined;
}
