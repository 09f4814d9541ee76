/**
 * Values as Deno KV stores them: a `Uint8Array` as its bytes, a `Deno.KvU64` as 8 bytes
 * little-endian, anything else in V8's structured-clone serialization (node:v8, the format
 * `Deno.Kv` uses), so objects, arrays, strings, numbers, bigints, Dates, nested Uint8Arrays, null
 * and undefined round-trip as they do in KV. The first byte says which of the three it is.
 */

import { deserialize, serialize } from "node:v8";

const V8 = 1;
const BYTES = 2;
const U64 = 3;

/** Deno KV's largest value: 65,536 bytes of payload (a KvU64 is 8). */
export const MAX_VALUE_BYTES = 65_536;

/** The stored form of `value`. Throws a TypeError for a value too large, as Deno KV does. */
export function encodeValue(value: unknown): Uint8Array {
  let tag: number;
  let payload: Uint8Array;
  if (value instanceof Deno.KvU64) {
    tag = U64;
    payload = new Uint8Array(8);
    new DataView(payload.buffer).setBigUint64(0, value.value, true);
  } else if (value instanceof Uint8Array) {
    tag = BYTES;
    payload = value;
  } else {
    tag = V8;
    payload = serialize(value);
  }
  if (payload.length > MAX_VALUE_BYTES) {
    throw new TypeError(`Value too large (max ${MAX_VALUE_BYTES} bytes)`);
  }
  const stored = new Uint8Array(payload.length + 1);
  stored[0] = tag;
  stored.set(payload, 1);
  return stored;
}

/** The value stored as `stored`. */
export function decodeValue(stored: Uint8Array): unknown {
  const payload = stored.subarray(1);
  switch (stored[0]) {
    case U64:
      return new Deno.KvU64(
        new DataView(payload.buffer, payload.byteOffset, 8).getBigUint64(0, true),
      );
    case BYTES:
      return Uint8Array.from(payload);
    case V8:
      return deserialize(payload);
    default:
      throw new TypeError(`unknown stored value kind ${stored[0]}`);
  }
}

/** The counter a `sum` adds to: a stored KvU64, 0 when absent; throws for any other value. */
export function u64Of(stored: Uint8Array | undefined): bigint {
  if (!stored) return 0n;
  if (stored[0] !== U64) {
    throw new TypeError("Failed to perform 'sum' mutation on a non-U64 value in the database");
  }
  return (decodeValue(stored) as Deno.KvU64).value;
}
