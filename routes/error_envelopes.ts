/** Renders a GatewayError in each client interface's own error envelope. */

import type { ClientInterface } from "../core/keys/credentials.ts";
import type { ErrorKind, GatewayError } from "../core/errors.ts";
import { anthropicErrorOf } from "../core/formats/anthropic/error_types.ts";
import { geminiErrorBody } from "../core/formats/gemini/error_body.ts";

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

/** Google's envelope of `error`, with the HTTP status its google code maps to. */
function geminiError(error: GatewayError, requestId: string) {
  const retryAfter = Number(error.headers["retry-after"]);
  return geminiErrorBody({
    httpStatus: error.status,
    message: error.message,
    code: error.code,
    requestId,
    retryAfterSeconds: Number.isInteger(retryAfter) && retryAfter >= 0 ? retryAfter : undefined,
  });
}

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
      return geminiError(error, requestId).body;
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
  // Google's and Anthropic's envelopes go with statuses of their own (a 502 is Google's 503
  // UNAVAILABLE; an overloaded upstream is Anthropic's 529).
  const status = clientInterface === "gemini"
    ? geminiError(error, requestId).status
    : clientInterface === "anthropic"
    ? anthropicErrorOf(error).status
    : error.status;
  return new Response(JSON.stringify(errorBody(clientInterface, { error, requestId })), {
    status,
    headers,
  });
}
