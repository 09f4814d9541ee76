import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { SignInThrottle } from "../../../core/members/sign_in_throttle.ts";
import { GatewayError } from "../../../core/errors.ts";

function refusal(work: () => void): GatewayError | null {
  try {
    work();
    return null;
  } catch (error) {
    assertOk(error instanceof GatewayError);
    return error;
  }
}

Deno.test("SignInThrottle: an email with 5 failures is refused with 429 before any check, from any address", () => {
  const throttle = new SignInThrottle();
  const now = 1_000_000;
  for (let i = 0; i < 5; i++) {
    assertEquals(refusal(() => throttle.check("ana@example.com", `10.0.0.${i}`, now)), null);
    throttle.failed("ana@example.com", `10.0.0.${i}`, now);
  }
  const blocked = refusal(() => throttle.check("ana@example.com", "10.0.0.99", now + 1));
  assertEquals(blocked?.status, 429);
  assertOk(Number(blocked?.headers["retry-after"]) > 0);
  assertEquals(refusal(() => throttle.check("bo@example.com", "10.0.0.99", now + 1)), null);
});

Deno.test("SignInThrottle: an address failing over many emails is refused too", () => {
  const throttle = new SignInThrottle();
  const now = 1_000_000;
  for (let i = 0; i < 20; i++) throttle.failed(`user${i}@example.com`, "192.0.2.7", now);
  assertEquals(refusal(() => throttle.check("new@example.com", "192.0.2.7", now + 1))?.status, 429);
  assertEquals(refusal(() => throttle.check("new@example.com", "192.0.2.8", now + 1)), null);
});
