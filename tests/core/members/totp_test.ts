import { Secret, TOTP } from "otpauth";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { newTotpSecret, totpStep, totpUri } from "../../../core/members/totp.ts";

const codeAt = (secret: string, timestamp: number) =>
  new TOTP({ algorithm: "SHA1", digits: 6, period: 30, secret: Secret.fromBase32(secret) })
    .generate({ timestamp });

Deno.test("totpStep: a code of this step or the next or previous one; not two steps away", () => {
  const secret = newTotpSecret();
  const now = 1_800_000_000_000;
  const step = Math.floor(now / 30_000);
  assertEquals(totpStep(secret, codeAt(secret, now), now), step);
  assertEquals(totpStep(secret, codeAt(secret, now - 30_000), now), step - 1);
  assertEquals(totpStep(secret, codeAt(secret, now + 30_000), now), step + 1);
  assertEquals(totpStep(secret, codeAt(secret, now + 90_000), now), null);
  assertEquals(totpStep(secret, "12345", now), null);
  assertEquals(totpStep(secret, "abcdef", now), null);
});

Deno.test("totpUri: an otpauth URI with SHA1, 6 digits, 30 s and the secret", () => {
  const secret = newTotpSecret();
  const uri = new URL(totpUri(secret, "ana@example.com", "gateway"));
  assertEquals(uri.protocol, "otpauth:");
  assertEquals(uri.searchParams.get("secret"), secret);
  assertEquals(uri.searchParams.get("algorithm"), "SHA1");
  assertEquals(uri.searchParams.get("digits"), "6");
  assertEquals(uri.searchParams.get("period"), "30");
  assertOk(decodeURIComponent(uri.pathname).includes("ana@example.com"), uri.pathname);
});
