import { assertEquals, assertOk } from "../../helpers/assert.ts";
import {
  ARGON2_PARAMETERS,
  hashPassword,
  verifyDummy,
  verifyPassword,
} from "../../../core/members/password_hash.ts";

Deno.test("hashPassword: an argon2id PHC string with the documented parameters and a fresh salt", async () => {
  const first = await hashPassword("correct horse battery");
  const second = await hashPassword("correct horse battery");
  const { memorySize, iterations, parallelism } = ARGON2_PARAMETERS;
  assertOk(
    first.startsWith(`$argon2id$v=19$m=${memorySize},t=${iterations},p=${parallelism}$`),
    first,
  );
  assertOk(first !== second, "each hash has its own salt");
  assertOk(!first.includes("correct horse"), "the password is not in the hash");
});

Deno.test("verifyPassword: the right password only; an unreadable hash is false", async () => {
  const stored = await hashPassword("correct horse battery");
  assertEquals(await verifyPassword("correct horse battery", stored), true);
  assertEquals(await verifyPassword("correct horse batterY", stored), false);
  assertEquals(await verifyPassword("", stored), false);
  assertEquals(await verifyPassword("correct horse battery", "$2b$10$notargon"), false);
  assertEquals(await verifyDummy("anything at all"), false);
});
