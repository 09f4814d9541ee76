/** Which Anthropic error type and status a gateway error or an in-stream error code is. */

import { GatewayError } from "../../../core/errors.ts";
import {
  ANTHROPIC_ERROR_STATUS,
  anthropicErrorOf,
  anthropicStreamErrorType,
} from "../../../core/formats/anthropic/error_types.ts";
import { assertEquals } from "../../helpers/assert.ts";

const upstreamFailure = (status: number | undefined, errorClass: string) =>
  new GatewayError("upstream_unavailable", 502, "x", { upstream: { status, errorClass } });

Deno.test("anthropic errors: client errors keep their status, with Anthropic's type", () => {
  const cases: Array<[number, string]> = [
    [400, "invalid_request_error"],
    [401, "authentication_error"],
    [402, "billing_error"],
    [403, "permission_error"],
    [404, "not_found_error"],
    [413, "request_too_large"],
    [429, "rate_limit_error"],
    // Other 4xx: "We may also use this error type for other 4XX status codes".
    [409, "invalid_request_error"],
    [499, "invalid_request_error"],
  ];
  for (const [status, type] of cases) {
    assertEquals(anthropicErrorOf(new GatewayError("c", status, "x")), { type, status });
  }
});

Deno.test("anthropic errors: a 5xx is one of Anthropic's 529, 504 and 500", () => {
  const overloaded = { type: "overloaded_error", status: 529 };
  assertEquals(anthropicErrorOf(upstreamFailure(503, "http_503")), overloaded);
  assertEquals(anthropicErrorOf(upstreamFailure(503, "http_529")), overloaded);
  assertEquals(anthropicErrorOf(upstreamFailure(529, "http_529")), overloaded);
  // The gateway's own 503s (no enabled channel, a contended ledger) are short capacity too.
  assertEquals(anthropicErrorOf(new GatewayError("no_available_channel", 503, "x")), overloaded);

  const timeout = { type: "timeout_error", status: 504 };
  assertEquals(anthropicErrorOf(upstreamFailure(undefined, "timeout")), timeout);
  assertEquals(anthropicErrorOf(upstreamFailure(504, "http_504")), timeout);

  const apiError = { type: "api_error", status: 500 };
  assertEquals(anthropicErrorOf(upstreamFailure(500, "http_500")), apiError);
  assertEquals(anthropicErrorOf(upstreamFailure(502, "http_502")), apiError);
  assertEquals(anthropicErrorOf(upstreamFailure(undefined, "connect_refused")), apiError);
  assertEquals(anthropicErrorOf(upstreamFailure(undefined, "bad_answer")), apiError);
  assertEquals(anthropicErrorOf(new GatewayError("internal_error", 500, "x")), apiError);
  assertEquals(anthropicErrorOf(new GatewayError("upstream_unavailable", 502, "x")), apiError);
});

Deno.test("anthropic errors: every type's status is Anthropic's", () => {
  for (const [type, status] of Object.entries(ANTHROPIC_ERROR_STATUS)) {
    if (status >= 500) continue;
    assertEquals(anthropicErrorOf(new GatewayError("c", status, "x")).type, type);
  }
});

Deno.test("anthropic errors: in-stream codes of each vendor in Anthropic's type names", () => {
  const cases: Array<[string | undefined, string]> = [
    ["overloaded_error", "overloaded_error"],
    ["rate_limit_error", "rate_limit_error"],
    ["invalid_request_error", "invalid_request_error"],
    ["UNAVAILABLE", "overloaded_error"],
    ["RESOURCE_EXHAUSTED", "rate_limit_error"],
    ["DEADLINE_EXCEEDED", "timeout_error"],
    ["INTERNAL", "api_error"],
    ["overloaded", "overloaded_error"],
    ["server_is_overloaded", "overloaded_error"],
    ["rate_limit_exceeded", "rate_limit_error"],
    ["server_error", "api_error"],
    ["upstream_stream_interrupted", "api_error"],
    ["upstream_timeout", "timeout_error"],
    ["toString", "api_error"],
    [undefined, "api_error"],
  ];
  for (const [code, type] of cases) assertEquals(anthropicStreamErrorType(code), type, code);
});
