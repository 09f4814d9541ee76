/**
 * Anthropic's error envelope (`{type: "error", error: {type, message}, request_id}`), with the
 * status its type goes with (an overloaded upstream is Anthropic's 529).
 */

import type { GatewayError } from "../../errors.ts";
import type { ErrorAnswer } from "../text_interface.ts";
import { anthropicErrorOf } from "./error_types.ts";

export function anthropicErrorAnswer(error: GatewayError, requestId: string): ErrorAnswer {
  const { type, status } = anthropicErrorOf(error);
  return {
    status,
    body: {
      type: "error",
      error: { type, message: error.message, code: error.code },
      request_id: requestId,
    },
  };
}
