/**
 * A list selector as a byte range [start, end) and its cursors, as Deno KV makes them: a cursor is
 * base64url of the last key read without the selector's common prefix (the prefix, or what start
 * and end share); forwards a list resumes just after it, in reverse just before it. A cursor that
 * does not decode throws `invalid cursor`, one outside the selector `cursor out of bounds` (the
 * TypeErrors core/kv/list_options.ts names).
 */

import { compareBytes, encodeKey } from "./key_codec.ts";

export interface ListRange {
  /** Inclusive. */
  start: Uint8Array;
  /** Exclusive. */
  end: Uint8Array;
}

interface RawSelector {
  prefix?: Uint8Array;
  start?: Uint8Array;
  end?: Uint8Array;
}

function concat(...parts: (Uint8Array | number[])[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  return bytes.length >= prefix.length && prefix.every((byte, i) => bytes[i] === byte);
}

function rawSelector(selector: Deno.KvListSelector): RawSelector {
  const encoded = (key: Deno.KvKey | undefined) => key && encodeKey(key);
  const s = selector as { prefix?: Deno.KvKey; start?: Deno.KvKey; end?: Deno.KvKey };
  const raw = { prefix: encoded(s.prefix), start: encoded(s.start), end: encoded(s.end) };
  if (raw.prefix) {
    if (raw.start && raw.end) {
      throw new TypeError(
        "Selector can not specify both 'start' and 'end' key when specifying 'prefix'",
      );
    }
    const inside = (key: Uint8Array) =>
      startsWith(key, raw.prefix!) && key.length > raw.prefix!.length;
    if (raw.start && !inside(raw.start)) {
      throw new TypeError("Start key is not in the keyspace defined by prefix");
    }
    if (raw.end && !inside(raw.end)) {
      throw new TypeError("End key is not in the keyspace defined by prefix");
    }
    return raw;
  }
  if (!raw.start || !raw.end) {
    throw new TypeError("Selector must specify either 'prefix' or both 'start' and 'end' key");
  }
  if (compareBytes(raw.start, raw.end) > 0) {
    throw new TypeError("Start key is greater than end key");
  }
  return raw;
}

function commonPrefix(raw: RawSelector): Uint8Array {
  if (raw.prefix) return raw.prefix;
  const [a, b] = [raw.start!, raw.end!];
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return a.subarray(0, i);
}

/** A selector whose cursors can be made and read. */
export class SelectorRange {
  readonly #raw: RawSelector;
  readonly #common: Uint8Array;

  constructor(selector: Deno.KvListSelector) {
    this.#raw = rawSelector(selector);
    this.#common = commonPrefix(this.#raw);
  }

  /** The whole selector. */
  get whole(): ListRange {
    const { prefix, start, end } = this.#raw;
    return {
      start: start ?? concat(prefix!, [0x00]),
      end: end ?? concat(prefix!, [0xff]),
    };
  }

  /** What is left to read after `cursor` (given by an earlier list of this selector). */
  after(cursor: string | undefined, reverse: boolean): ListRange {
    const whole = this.whole;
    if (cursor === undefined || cursor === "") return whole;
    let tail: Uint8Array;
    try {
      if (!/^[A-Za-z0-9_-]*={0,2}$/.test(cursor)) throw new Error("not base64url");
      tail = Uint8Array.fromBase64(cursor, { alphabet: "base64url" });
    } catch {
      throw new TypeError("invalid cursor");
    }
    const last = concat(this.#common, tail);
    const range = reverse ? { start: whole.start, end: last } : {
      start: concat(last, [0x00]),
      end: whole.end,
    };
    if (this.#raw.start && compareBytes(range.start, this.#raw.start) < 0) {
      throw new TypeError("cursor out of bounds");
    }
    if (this.#raw.end && compareBytes(range.end, this.#raw.end) > 0) {
      throw new TypeError("cursor out of bounds");
    }
    return range;
  }

  /** The cursor that resumes after the key whose bytes are `key`. */
  cursorAfter(key: Uint8Array): string {
    if (!startsWith(key, this.#common)) throw new TypeError("Invalid boundary key");
    return key.subarray(this.#common.length).toBase64({ alphabet: "base64url" });
  }
}
