/** Renders a GatewayError in each client interface's own error envelope. */

import type { ClientInterface } from "../core/keys/credentials.ts";
import type { ErrorKind, GatewayError } from "../core/errors.ts";
import { anthropicErrorOf } from "../core/formats/anthropic/error_types.ts";

const OPENAI_TYPES: Record<ErrorKind, string> = {
  invalid_request: "invalid_request_error",
  authentication: "authentication_error",
  permission: "permission_error",
  not_found: "invalid_request_error",
  payment_required: "insufficient_quota",
  request_too_large: "invalid_request_error",
  rate_limit: "rate_limit_error",
  upstream: "api_error",
  unavailable: "api_error",
  internal: "server_error",
};

const GEMINI_STATUSES: Record<ErrorKind, string> = {
  invalid_request: "INVALID_ARGUMENT",
  authentication: "UNAUTHENTICATED",
  permission: "PERMISSION_DENIED",
  not_found: "NOT_FOUND",
  payment_required: "FAILED_PRECONDITION",
  request_too_large: "INVALID_ARGUMENT",
  rate_limit: "RESOURCE_EXHAUSTED",
  upstream: "UNAVAILABLE",
  unavailable: "UNAVAILABLE",
  internal: "INTERNAL",
};

/** The JSON body of `error` in `clientInterface`'s envelope. */
export function errorBody(
  clientInterface: ClientInterface,
  { error, requestId }: { error: GatewayError; requestId: string },
): unknown {
  switch (clientInterface) {
    case "anthropic":
      return {
        type: "error",
        error: { type: anthropicErrorOf(error).type, message: error.message, code: error.code },
        request_id: requestId,
      };
    case "gemini":
      return {
        error: {
          code: error.status,
          message: error.message,
          status: GEMINI_STATUSES[error.kind],
          details: [{
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            reason: error.code,
            domain: "gateway",
            metadata: { request_id: requestId },
          }],
        },
      };
    default:
      return {
        error: {
          message: error.message,
          type: OPENAI_TYPES[error.kind],
          param: error.param ?? null,
          code: error.code,
          request_id: requestId,
        },
      };
  }
}

/** The full error response: envelope, status, request id and retry hints. */
export function errorResponse(
  clientInterface: ClientInterface,
  { error, requestId }: { error: GatewayError; requestId: string },
): Response {
  const headers = new Headers({
    "content-type": "application/json",
    "x-request-id": requestId,
    ...error.headers,
  });
  if (clientInterface === "anthropic") headers.set("request-id", requestId);
  if (error.retryable !== undefined) headers.set("x-should-retry", String(error.retryable));
  return new Response(JSON.stringify(errorBody(clientInterface, { error, requestId })), {
    status: clientInterface === "anthropic" ? anthropicErrorOf(error).status : error.status,
    headers,
  });
}
