import { assertEquals, assertThrows } from "../../../helpers/assert.ts";
import {
  decodeValue,
  encodeValue,
  MAX_VALUE_BYTES,
  u64Of,
} from "../../../../core/kv/postgres/value_codec.ts";

Deno.test("value codec: what the stores put in KV comes back the same", () => {
  const values: unknown[] = [
    { id: "k_1", n: 1.5, at: new Date(5), nested: { list: [1, "two", null, undefined] } },
    "text",
    -12,
    2n ** 80n,
    false,
    null,
    undefined,
    new Date(0),
    new Uint8Array([0, 1, 255]),
    new Deno.KvU64(2n ** 64n - 1n),
    [new Uint8Array([3]), { value: 7n }],
  ];
  for (const value of values) assertEquals(decodeValue(encodeValue(value)), value);
});

Deno.test("value codec: Deno KV's size limit; a sum needs a KvU64", () => {
  assertEquals(decodeValue(encodeValue(new Uint8Array(MAX_VALUE_BYTES))), new Uint8Array(65_536));
  assertThrows(() => encodeValue(new Uint8Array(MAX_VALUE_BYTES + 1)));
  assertThrows(() => encodeValue("x".repeat(MAX_VALUE_BYTES + 10)));
  assertEquals(u64Of(undefined), 0n);
  assertEquals(u64Of(encodeValue(new Deno.KvU64(9n))), 9n);
  assertThrows(() => u64Of(encodeValue(9)));
});
