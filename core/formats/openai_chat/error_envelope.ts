/** OpenAI's error envelope (`{error: {message, type, param, code}}`), with the gateway's status. */

import type { ErrorKind, GatewayError } from "../../errors.ts";
import type { ErrorAnswer } from "../text_interface.ts";

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

export function openAIErrorAnswer(error: GatewayError, requestId: string): ErrorAnswer {
  return {
    status: error.status,
    body: {
      error: {
        message: error.message,
        type: OPENAI_TYPES[error.kind],
        param: error.param ?? null,
        code: error.code,
        request_id: requestId,
      },
    },
  };
}
