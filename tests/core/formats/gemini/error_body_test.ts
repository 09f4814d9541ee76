/** Google's error envelope: status names and HTTP statuses agree as google.rpc.Code maps them. */

import { assertEquals } from "../../../helpers/assert.ts";
import {
  errorInfoReason,
  geminiErrorBody,
  googleCodeOf,
  HTTP_STATUS_OF_GOOGLE_CODE,
} from "../../../../core/formats/gemini/error_body.ts";

Deno.test("gemini errors: each gateway status gets the google code and that code's HTTP status", () => {
  const cases: Array<[number, string, number]> = [
    [400, "INVALID_ARGUMENT", 400],
    [401, "UNAUTHENTICATED", 401],
    [402, "FAILED_PRECONDITION", 400],
    [403, "PERMISSION_DENIED", 403],
    [404, "NOT_FOUND", 404],
    [408, "DEADLINE_EXCEEDED", 504],
    [409, "ABORTED", 409],
    [413, "INVALID_ARGUMENT", 400],
    [429, "RESOURCE_EXHAUSTED", 429],
    [499, "CANCELLED", 499],
    [500, "INTERNAL", 500],
    [502, "UNAVAILABLE", 503],
    [503, "UNAVAILABLE", 503],
    [504, "DEADLINE_EXCEEDED", 504],
    [529, "UNAVAILABLE", 503],
    [418, "INVALID_ARGUMENT", 400],
    [599, "INTERNAL", 500],
  ];
  for (const [gateway, code, http] of cases) {
    const { status, body } = geminiErrorBody({ httpStatus: gateway, message: "m", code: "x" });
    assertEquals([googleCodeOf(gateway), status, body.error.code, body.error.status], [
      code,
      http,
      http,
      code,
    ], String(gateway));
  }
  // Whatever the gateway's status, the HTTP status sent is the one google.rpc.Code gives the name.
  for (let gateway = 400; gateway < 600; gateway++) {
    const { status, body } = geminiErrorBody({ httpStatus: gateway, message: "m", code: "x" });
    assertEquals([status, body.error.code], [
      HTTP_STATUS_OF_GOOGLE_CODE[body.error.status],
      HTTP_STATUS_OF_GOOGLE_CODE[body.error.status],
    ]);
  }
});

Deno.test("gemini errors: reasons are UPPER_SNAKE_CASE as ErrorInfo requires", () => {
  const pattern = /^[A-Z][A-Z0-9_]+[A-Z0-9]$/;
  const cases: Array<[string, string]> = [
    ["insufficient_balance", "INSUFFICIENT_BALANCE"],
    ["model_not_found", "MODEL_NOT_FOUND"],
    ["invalid-request.error", "INVALID_REQUEST_ERROR"],
    ["_trailing_", "TRAILING"],
    ["429", "ERROR_429"],
    ["x".repeat(80), "X".repeat(63)],
  ];
  for (const [code, reason] of cases) {
    assertEquals(errorInfoReason(code), reason);
    assertEquals(pattern.test(errorInfoReason(code)), true, code);
  }
});

Deno.test("gemini errors: every detail names its @type; retry-after becomes a RetryInfo", () => {
  const { body } = geminiErrorBody({
    httpStatus: 429,
    message: "slow down",
    code: "rate_limited",
    requestId: "req_1",
    retryAfterSeconds: 7,
  });
  assertEquals(body.error.details, [
    {
      "@type": "type.googleapis.com/google.rpc.ErrorInfo",
      reason: "RATE_LIMITED",
      domain: "gateway",
      metadata: { request_id: "req_1" },
    },
    { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "7s" },
  ]);
});
