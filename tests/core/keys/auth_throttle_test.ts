import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { GatewayError } from "../../../core/errors.ts";
import { AuthThrottle, throttleBucket } from "../../../core/keys/auth_throttle.ts";

const bad = new GatewayError("invalid_api_key", 401, "The API key is not valid");
const T0 = 1_800_000_000_000;

/** Fails `count` times from `address`, a millisecond apart; the answers' statuses. */
function failTimes(throttle: AuthThrottle, address: string, count: number, start = T0) {
  return Array.from({ length: count }, (_, i) => throttle.failed(address, bad, start + i).status);
}

Deno.test("AuthThrottle: ten failures a minute are 401s; the eleventh is a 429 with retry-after", () => {
  const throttle = new AuthThrottle();
  assertEquals(failTimes(throttle, "10.0.0.1", 10), Array(10).fill(401));
  const refused = throttle.failed("10.0.0.1", bad, T0 + 10);
  assertEquals(refused.status, 429);
  assertEquals(refused.code, "auth_rate_limited");
  assertEquals(refused.retryable, false);
  assertOk(Number(refused.headers["retry-after"]) >= 1, JSON.stringify(refused.headers));
  assertOk(refused.message.includes("invalid_api_key"), refused.message);
  // Other addresses are not affected.
  assertEquals(throttle.failed("10.0.0.2", bad, T0 + 11).status, 401);
});

Deno.test("AuthThrottle: failures while blocked double the block, up to the cap", () => {
  const throttle = new AuthThrottle({ baseBlockMs: 1_000, maxBlockMs: 8_000 });
  failTimes(throttle, "a", 10);
  const retries = Array.from(
    { length: 6 },
    (_, i) => Number(throttle.failed("a", bad, T0 + 100 + i).headers["retry-after"]),
  );
  assertEquals(retries, [2, 4, 8, 8, 8, 8]);
  assertEquals(throttle.retryAfter("a", T0 + 200), 8);
});

Deno.test("AuthThrottle: failures spread over more than a window never block", () => {
  const throttle = new AuthThrottle({ threshold: 3, windowMs: 1_000 });
  const statuses = Array.from(
    { length: 20 },
    (_, i) => throttle.failed("a", bad, T0 + i * 600).status,
  );
  assertEquals(statuses, Array(20).fill(401));
});

Deno.test("AuthThrottle: a block that runs out lets one failure through, then blocks longer", () => {
  const throttle = new AuthThrottle({ threshold: 3, baseBlockMs: 1_000 });
  failTimes(throttle, "a", 3); // blocked for 1 s from T0 + 2
  assertEquals(throttle.failed("a", bad, T0 + 500).status, 429); // now 2 s, to T0 + 2,500
  assertEquals(throttle.failed("a", bad, T0 + 3_000).status, 401); // the block is over
  assertEquals(throttle.retryAfter("a", T0 + 3_000), 4); // and a longer one began
  assertEquals(throttle.failed("a", bad, T0 + 3_001).status, 429);
});

Deno.test("AuthThrottle: the table is bounded; the least recent address is forgotten first", () => {
  const throttle = new AuthThrottle({ threshold: 2, maxEntries: 100 });
  for (let i = 0; i < 10_000; i++) throttle.failed(`10.1.${i >> 8}.${i & 255}`, bad, T0 + i);
  assertOk(throttle.size <= 100, `${throttle.size} addresses remembered`);
  failTimes(throttle, "10.9.9.9", 2, T0 + 20_000);
  assertEquals(throttle.failed("10.9.9.9", bad, T0 + 20_002).status, 429);
});

Deno.test("throttleBucket: IPv4 as it is, IPv6 by its /64, mapped IPv4 as IPv4", () => {
  assertEquals(throttleBucket("127.0.0.1"), "127.0.0.1");
  assertEquals(throttleBucket("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
  assertEquals(throttleBucket("2001:0db8:0001:0002:ffff:0:0:9"), "2001:db8:1:2::/64");
  assertEquals(throttleBucket("[2001:db8:1:2::7]"), "2001:db8:1:2::/64");
  assertEquals(throttleBucket("::1"), "0:0:0:0::/64");
  assertEquals(throttleBucket("::ffff:192.0.2.7"), "192.0.2.7");
});
