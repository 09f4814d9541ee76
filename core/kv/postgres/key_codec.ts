/**
 * Deno KV's key encoding (the FoundationDB tuple layout denokv uses), so that keys stored as
 * bytes sort in PostgreSQL (`bytea` compares byte by byte) exactly as Deno KV orders them:
 * Uint8Array (0x01) < string (0x02) < bigint (0x0b–0x1d) < number (0x21) < false (0x26) < true
 * (0x27); within a type by value; a shorter key before the keys it is a prefix of. Cursors are
 * made of these bytes too (core/kv/postgres/list_range.ts), as Deno KV's are.
 */

const BYTES = 0x01;
const STRING = 0x02;
const NEGINTSTART = 0x0b;
const INTZERO = 0x14;
const POSINTEND = 0x1d;
const DOUBLE = 0x21;
const FALSE = 0x26;
const TRUE = 0x27;
/** Integers of up to this many bytes carry their length in the tag. */
const MAX_SHORT_INT = 8;

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder("utf-8", { fatal: true });

/** A key's bytes. Throws a TypeError for a part Deno KV does not take. */
export function encodeKey(key: Deno.KvKey): Uint8Array {
  const out: number[] = [];
  for (const part of key) encodePart(out, part);
  return Uint8Array.from(out);
}

function encodePart(out: number[], part: Deno.KvKeyPart): void {
  if (part instanceof Uint8Array) {
    out.push(BYTES);
    escapeInto(out, part);
  } else if (typeof part === "string") {
    out.push(STRING);
    escapeInto(out, utf8.encode(part));
  } else if (typeof part === "bigint") {
    encodeBigInt(out, part);
  } else if (typeof part === "number") {
    encodeDouble(out, part);
  } else if (part === false) {
    out.push(FALSE);
  } else if (part === true) {
    out.push(TRUE);
  } else {
    throw new TypeError(`Invalid key part: ${typeof part}`);
  }
}

/** The bytes, each 0x00 followed by 0xff, then a 0x00 that ends the part. */
function escapeInto(out: number[], bytes: Uint8Array): void {
  for (const byte of bytes) {
    out.push(byte);
    if (byte === 0) out.push(0xff);
  }
  out.push(0);
}

function bigEndianBytes(magnitude: bigint): number[] {
  const bytes: number[] = [];
  for (let rest = magnitude; rest > 0n; rest >>= 8n) bytes.unshift(Number(rest & 0xffn));
  return bytes;
}

function encodeBigInt(out: number[], value: bigint): void {
  if (value === 0n) {
    out.push(INTZERO);
    return;
  }
  const bytes = bigEndianBytes(value < 0n ? -value : value);
  const n = bytes.length;
  if (n > 255) throw new TypeError("BigUint requires more than 255 bytes to be represented");
  if (value > 0n) {
    if (n <= MAX_SHORT_INT) out.push(INTZERO + n);
    else out.push(POSINTEND, n);
    out.push(...bytes);
    return;
  }
  if (n <= MAX_SHORT_INT) out.push(INTZERO - n);
  else out.push(NEGINTSTART, n ^ 0xff);
  out.push(...bytes.map((byte) => byte ^ 0xff));
}

function encodeDouble(out: number[], value: number): void {
  const view = new DataView(new ArrayBuffer(8));
  // NaN is one value to Deno KV (its sign kept).
  view.setFloat64(0, Number.isNaN(value) ? NaN : value);
  if (Number.isNaN(value)) view.setUint8(0, view.getUint8(0) & 0x7f);
  const negative = (view.getUint8(0) & 0x80) !== 0;
  out.push(DOUBLE);
  for (let i = 0; i < 8; i++) {
    const byte = view.getUint8(i);
    out.push(negative ? byte ^ 0xff : i === 0 ? byte ^ 0x80 : byte);
  }
}

/** The key whose bytes are `bytes`. Throws on bytes no key encodes to. */
export function decodeKey(bytes: Uint8Array): Deno.KvKey {
  const key: Deno.KvKeyPart[] = [];
  let at = 0;
  const take = (n: number) => {
    if (at + n > bytes.length) throw new TypeError("invalid key: unexpected end");
    const slice = bytes.subarray(at, at + n);
    at += n;
    return slice;
  };
  const escaped = () => {
    const out: number[] = [];
    for (;;) {
      const [byte] = take(1);
      if (byte !== 0) {
        out.push(byte);
      } else if (bytes[at] === 0xff) {
        out.push(0);
        at++;
      } else {
        return Uint8Array.from(out);
      }
    }
  };
  while (at < bytes.length) {
    const [tag] = take(1);
    if (tag === BYTES) key.push(escaped());
    else if (tag === STRING) key.push(fromUtf8.decode(escaped()));
    else if (tag >= NEGINTSTART && tag <= POSINTEND) key.push(decodeBigInt(tag, take));
    else if (tag === DOUBLE) key.push(decodeDouble(take(8)));
    else if (tag === FALSE) key.push(false);
    else if (tag === TRUE) key.push(true);
    else throw new TypeError(`invalid key: tag ${tag}`);
  }
  return key;
}

function decodeBigInt(tag: number, take: (n: number) => Uint8Array): bigint {
  const positive = tag >= INTZERO;
  const n = tag === POSINTEND
    ? take(1)[0]
    : tag === NEGINTSTART
    ? take(1)[0] ^ 0xff
    : Math.abs(tag - INTZERO);
  let magnitude = 0n;
  for (const byte of take(n)) magnitude = (magnitude << 8n) | BigInt(positive ? byte : byte ^ 0xff);
  return positive ? magnitude : -magnitude;
}

function decodeDouble(bytes: Uint8Array): number {
  const view = new DataView(new ArrayBuffer(8));
  const negative = (bytes[0] & 0x80) === 0;
  for (let i = 0; i < 8; i++) {
    view.setUint8(i, negative ? bytes[i] ^ 0xff : i === 0 ? bytes[i] ^ 0x80 : bytes[i]);
  }
  return view.getFloat64(0);
}

/** -1, 0 or 1 as `a` sorts before, with or after `b` (what `bytea` comparison gives). */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}
