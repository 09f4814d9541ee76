/**
 * The key codec gives the bytes Deno KV itself gives (read off the embedded KV's cursors, which
 * are base64url of a key's bytes after the selector's prefix), so bytea order is KV order.
 */

import { assertEquals, assertThrows } from "../../../helpers/assert.ts";
import { compareBytes, decodeKey, encodeKey } from "../../../../core/kv/postgres/key_codec.ts";

const KEYS: Deno.KvKey[] = [
  ["a"],
  [""],
  ["with\0zero", "ü € 𝄞"],
  [new Uint8Array([]), new Uint8Array([0, 1, 0xff, 0])],
  [0n, 1n, -1n, 255n, -256n, 2n ** 63n, -(2n ** 64n), 2n ** 100n, -(2n ** 100n)],
  [0, -0, 1.5, -1.5, 2 ** 53, -Infinity, Infinity, Number.MIN_VALUE, NaN],
  [true, false],
  ["balance", "key_0123", 17, 3n, true, new Uint8Array([7])],
];

/** Deno KV's own bytes for `key`: the cursor of a one-entry list over everything. */
async function denoKvBytes(kv: Deno.Kv, key: Deno.KvKey): Promise<Uint8Array> {
  await kv.set(key, 1);
  const listing = kv.list({ prefix: [key[0]] }, { limit: 1 });
  await Array.fromAsync(listing);
  await kv.delete(key);
  const tail = Uint8Array.fromBase64(listing.cursor, { alphabet: "base64url" });
  const head = encodeKey([key[0]]);
  return Uint8Array.from([...head, ...tail]);
}

Deno.test("key codec: the bytes of each key part are Deno KV's", async () => {
  await using kv = await Deno.openKv(":memory:");
  for (const key of KEYS) {
    for (let end = 1; end <= key.length; end++) {
      const part = key.slice(0, end);
      // Deno KV lists under a prefix, so every key here has a first part and something after.
      const probe = [...part, "z"];
      assertEquals(encodeKey(probe), await denoKvBytes(kv, probe), Deno.inspect(probe));
    }
  }
});

Deno.test("key codec: decoding gives the key back (-0 and NaN too)", () => {
  for (const key of KEYS) assertEquals(decodeKey(encodeKey(key)), key);
});

Deno.test("key codec: byte order is Deno KV's order", async () => {
  await using kv = await Deno.openKv(":memory:");
  const parts: Deno.KvKeyPart[] = [
    ...KEYS.flat(),
    "b",
    "ab",
    "a\0",
    -2n,
    100n,
    -100,
    0.25,
  ].filter((part, i, all) =>
    all.findIndex((other) => Deno.inspect(other) === Deno.inspect(part)) === i
  );
  for (const part of parts) await kv.set(["order", part], 1);
  const denoOrder = (await Array.fromAsync(kv.list({ prefix: ["order"] }))).map((e) => e.key);
  const ours = parts.map((part) => ["order", part]).sort((a, b) =>
    compareBytes(encodeKey(a), encodeKey(b))
  );
  assertEquals(ours.map((key) => Deno.inspect(key)), denoOrder.map((key) => Deno.inspect(key)));
});

Deno.test("key codec: a key part of another type is refused", () => {
  assertThrows(() => encodeKey([{} as unknown as string]));
  assertThrows(() => decodeKey(Uint8Array.from([0x02, 0x61])));
});
