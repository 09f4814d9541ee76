/** Google's envelope of a gateway error, with the HTTP status its google code maps to. */

import type { GatewayError } from "../../errors.ts";
import type { ErrorAnswer } from "../text_interface.ts";
import { geminiErrorBody } from "./error_body.ts";

export function geminiErrorAnswer(error: GatewayError, requestId: string): ErrorAnswer {
  const retryAfter = Number(error.headers["retry-after"]);
  return geminiErrorBody({
    httpStatus: error.status,
    message: error.message,
    code: error.code,
    requestId,
    retryAfterSeconds: Number.isInteger(retryAfter) && retryAfter >= 0 ? retryAfter : undefined,
  });
}
