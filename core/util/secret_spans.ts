/**
 * Where secrets appear in a text: as written, and also when their letters and digits are split
 * by anything else (spaces, line breaks, dots, dashes: "sk-ab cd-ef", "s k - a b…") or written
 * as escapes — percent-encoding (`%73`) or JSON (`\u0073`, and `\n`-style escapes between them) —
 * for some or all of their characters.
 *
 * A double quote that is not escaped ends a match: in JSON it is the edge of a string, so a span
 * never crosses one and replacing spans keeps JSON text JSON. One pass over the text per call, a
 * few numbers of state per secret, no copy of the text.
 */

/** Secrets shorter than this are not searched for at all (they would hide ordinary words). */
const MIN_SECRET_LENGTH = 6;
/** Secrets are searched for split or encoded only when they have this many letters and digits. */
const MIN_SPREAD_CHARS = 8;

const BACKSLASH = 0x5c;
const PERCENT = 0x25;
const QUOTE = 0x22;
/** The characters after a backslash that make a two-character JSON escape: `"\/bfnrt`. */
const JSON_ESCAPES = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);

function isLetterOrDigit(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x61 && code <= 0x7a);
}

/** The number written by `length` hex digits at `at`, or -1. */
function hexAt(text: string, at: number, length: number): number {
  if (at + length > text.length) return -1;
  let value = 0;
  for (let i = at; i < at + length; i++) {
    const code = text.charCodeAt(i);
    const digit = code >= 0x30 && code <= 0x39
      ? code - 0x30
      : code >= 0x41 && code <= 0x46
      ? code - 0x37
      : code >= 0x61 && code <= 0x66
      ? code - 0x57
      : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/** One secret's letters and digits, matched against the text's as they come (Knuth–Morris–Pratt). */
class SpreadMatcher {
  readonly #chars: string;
  readonly #fallback: Int32Array;
  /** Where each of the last `#chars.length` letters or digits of the text began (a ring). */
  readonly #starts: Int32Array;
  #matched = 0;
  #seen = 0;

  constructor(chars: string) {
    this.#chars = chars;
    this.#starts = new Int32Array(chars.length);
    this.#fallback = new Int32Array(chars.length);
    for (let i = 1, k = 0; i < chars.length; i++) {
      while (k > 0 && chars[i] !== chars[k]) k = this.#fallback[k - 1];
      if (chars[i] === chars[k]) k++;
      this.#fallback[i] = k;
    }
  }

  /** Takes the text's next letter or digit, written at [start, end); a span when it ends a match. */
  next(code: number, start: number, end: number): [number, number] | undefined {
    const chars = this.#chars;
    const length = chars.length;
    this.#starts[this.#seen % length] = start;
    this.#seen++;
    while (this.#matched > 0 && chars.charCodeAt(this.#matched) !== code) {
      this.#matched = this.#fallback[this.#matched - 1];
    }
    if (chars.charCodeAt(this.#matched) === code) this.#matched++;
    if (this.#matched < length) return undefined;
    this.#matched = this.#fallback[length - 1];
    return [this.#starts[(this.#seen - length) % length], end];
  }

  /** An unescaped quote: no match goes on across it. */
  reset(): void {
    this.#matched = 0;
  }
}

/** Sorted, overlapping or touching spans joined. */
function merged(spans: Array<[number, number]>): Array<[number, number]> {
  spans.sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const span of spans) {
    const last = out.at(-1);
    if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else out.push([span[0], span[1]]);
  }
  return out;
}

/**
 * The [start, end) spans of `text` that write one of `secrets`, as written or split or escaped
 * (above), sorted and without overlaps.
 */
export function secretSpans(text: string, secrets: readonly string[]): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  const matchers: SpreadMatcher[] = [];
  for (const secret of new Set(secrets)) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    for (let at = text.indexOf(secret); at >= 0; at = text.indexOf(secret, at + secret.length)) {
      spans.push([at, at + secret.length]);
    }
    const chars = secret.replace(/[^A-Za-z0-9]/g, "");
    if (chars.length >= MIN_SPREAD_CHARS) matchers.push(new SpreadMatcher(chars));
  }
  if (matchers.length) {
    for (let i = 0; i < text.length;) {
      let code = text.charCodeAt(i);
      let width = 1;
      if (code === QUOTE) {
        for (const matcher of matchers) matcher.reset();
        i++;
        continue;
      }
      if (code === PERCENT) {
        const value = hexAt(text, i + 1, 2);
        if (value >= 0) [code, width] = [value, 3];
      } else if (code === BACKSLASH) {
        const next = text.charCodeAt(i + 1);
        const value = next === 0x75 ? hexAt(text, i + 2, 4) : -1;
        if (value >= 0) [code, width] = [value, 6];
        else if (JSON_ESCAPES.has(next)) width = 2;
      }
      if (isLetterOrDigit(code)) {
        for (const matcher of matchers) {
          const span = matcher.next(code, i, i + width);
          if (span) spans.push(span);
        }
      }
      i += width;
    }
  }
  return merged(spans);
}

/** `text` with each of `spans` (sorted, apart) replaced by `replacement`. */
export function replaceSpans(
  text: string,
  spans: ReadonlyArray<readonly [number, number]>,
  replacement: string,
): string {
  if (!spans.length) return text;
  let out = "";
  let from = 0;
  for (const [start, end] of spans) {
    out += text.slice(from, start) + replacement;
    from = end;
  }
  return out + text.slice(from);
}
