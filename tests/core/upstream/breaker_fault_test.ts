import { UpstreamAttemptError } from "../../../core/upstream/attempt.ts";
import { breakerFault, retryAfterMs } from "../../../core/upstream/breaker_fault.ts";
import { assertEquals } from "../../helpers/assert.ts";

const error = (status: number | undefined, retryable: boolean, extra = {}) =>
  new UpstreamAttemptError(`HTTP ${status}`, { status, retryable, ...extra });

Deno.test("breaker fault: the client's errors and its disconnect are never the channel's", () => {
  assertEquals(breakerFault(error(400, false)), null);
  assertEquals(breakerFault(error(422, false)), null);
  assertEquals(
    breakerFault(
      new UpstreamAttemptError("gone", { retryable: false, errorClass: "client_closed" }),
    ),
    null,
  );
});

Deno.test("breaker fault: 5xx, timeouts and refused connections count; 401/403 refuse the key", () => {
  assertEquals(breakerFault(error(503, true)), {
    reason: "http_503",
    refused: false,
    rateLimited: false,
  });
  assertEquals(
    breakerFault(new UpstreamAttemptError("t", { retryable: true, errorClass: "timeout" }))
      ?.reason,
    "timeout",
  );
  assertEquals(breakerFault(error(401, true))?.refused, true);
  assertEquals(breakerFault(error(403, true))?.refused, true);
});

Deno.test("breaker fault: a 429's retry-after, as seconds or an HTTP date", () => {
  assertEquals(breakerFault(error(429, true, { retryAfter: "30" }))?.retryAfterMs, 30_000);
  const wallNow = Date.parse("2026-11-27T10:00:00Z");
  assertEquals(retryAfterMs("Fri, 27 Nov 2026 10:00:45 GMT", wallNow), 45_000);
  assertEquals(retryAfterMs("Fri, 27 Nov 2026 09:00:00 GMT", wallNow), 0);
  assertEquals(breakerFault(error(429, true))?.retryAfterMs, undefined);
});
