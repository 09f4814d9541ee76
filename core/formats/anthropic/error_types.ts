/**
 * Anthropic's error types and the HTTP status each goes with (docs.anthropic.com/en/api/errors;
 * `ErrorType` of @anthropic-ai/sdk, whose 504 `timeout_error` the page does not list), and which
 * one a gateway error or an upstream's in-stream error is on the messages interface (pure).
 */

import type { GatewayError } from "../../errors.ts";

export const ANTHROPIC_ERROR_STATUS = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
} as const;

export type AnthropicErrorType = keyof typeof ANTHROPIC_ERROR_STATUS;

const TYPE_OF_CLIENT_STATUS: Record<number, AnthropicErrorType> = {
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
};

/** Upstream statuses that say "overloaded": 503 from any vendor, Anthropic's own 529. */
const isOverloaded = (status: number | undefined) => status === 503 || status === 529;

/**
 * The type and status of `error` on /v1/messages. A 4xx keeps its status (Anthropic answers other
 * 4xx than its listed ones as `invalid_request_error`). A 5xx becomes one of Anthropic's three:
 * 529 `overloaded_error` when the gateway is short of capacity (503) or the upstream said it was
 * overloaded, 504 `timeout_error` when the upstream did not answer in time, else 500 `api_error`.
 */
export function anthropicErrorOf(
  error: GatewayError,
): { type: AnthropicErrorType; status: number } {
  if (error.status < 500) {
    return {
      type: TYPE_OF_CLIENT_STATUS[error.status] ?? "invalid_request_error",
      status: error.status,
    };
  }
  const upstream = error.upstream;
  const type: AnthropicErrorType = error.status === 503 || isOverloaded(upstream?.status)
    ? "overloaded_error"
    : upstream?.errorClass === "timeout" || upstream?.status === 504
    ? "timeout_error"
    : "api_error";
  return { type, status: ANTHROPIC_ERROR_STATUS[type] };
}

/**
 * The type of an in-stream `error` event for an upstream's in-stream error code: Anthropic's own
 * type as sent, Gemini's `status` and OpenAI's `code` in Anthropic's terms, the gateway's
 * `upstream_timeout` (an upstream gone silent) as `timeout_error`; anything else, and a stream cut
 * short, is `api_error`.
 */
export function anthropicStreamErrorType(code: string | undefined): AnthropicErrorType {
  if (code === undefined) return "api_error";
  if (Object.hasOwn(ANTHROPIC_ERROR_STATUS, code)) return code as AnthropicErrorType;
  if (code === "UNAVAILABLE" || /overload/i.test(code)) return "overloaded_error";
  if (code === "RESOURCE_EXHAUSTED" || /rate_limit/i.test(code)) return "rate_limit_error";
  if (code === "DEADLINE_EXCEEDED" || /timeout|timed_out/i.test(code)) return "timeout_error";
  return "api_error";
}
