import { SecretHashes } from "../../../core/keys/secret_hashes.ts";
import { sha256Hex } from "../../../core/util/ids.ts";
import { assertEquals } from "../../helpers/assert.ts";

Deno.test("secret hashes: the SHA-256 of a secret, kept only once remembered, bounded", async () => {
  const hashes = new SecretHashes({ limit: 2 });
  const hash = await sha256Hex("sk-gw-a");
  assertEquals(await hashes.hashOf("sk-gw-a"), hash);
  assertEquals(hashes.size, 0);
  hashes.remember("sk-gw-a", hash);
  assertEquals(hashes.hashOf("sk-gw-a"), hash);
  hashes.remember("sk-gw-b", await sha256Hex("sk-gw-b"));
  hashes.remember("sk-gw-c", await sha256Hex("sk-gw-c"));
  assertEquals(hashes.size, 1);
  assertEquals(await hashes.hashOf("sk-gw-a"), hash);
});
