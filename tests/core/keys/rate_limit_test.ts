import { assertEquals, assertThrows } from "../../helpers/assert.ts";
import { GatewayError } from "../../../core/errors.ts";
import { RateLimiter } from "../../../core/keys/rate_limit.ts";

Deno.test("RateLimiter.take() refuses the request past rpm with 429 and retry-after", () => {
  const limiter = new RateLimiter();
  const start = 60_000 * 1000;
  limiter.take("k", 2, start);
  limiter.take("k", 2, start + 1);
  const error = (() => {
    try {
      limiter.take("k", 2, start + 2);
    } catch (e) {
      return e as GatewayError;
    }
  })();
  assertEquals(error?.status, 429);
  assertEquals(Number(error?.headers["retry-after"]) > 0, true);
});

Deno.test("RateLimiter.take() lets requests through again once the window slides", () => {
  const limiter = new RateLimiter();
  const start = 60_000 * 1000;
  limiter.take("k", 1, start);
  assertThrows(() => limiter.take("k", 1, start + 1));
  limiter.take("k", 1, start + 120_000);
  limiter.take("other", 1, start + 1);
  limiter.take("k", null, start + 1);
});
