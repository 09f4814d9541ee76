/** The neutral stop reason of a finished responses-API response object. */

import type { StopReason } from "../neutral.ts";
import { stopWithCalls } from "../neutral.ts";
import type { ResponsesResponse } from "./answer_schemas.ts";

/** The stop reason of a finished response object. */
export function responsesStop(
  response: ResponsesResponse | undefined,
  madeCalls: boolean,
): StopReason {
  if (response?.status === "incomplete") {
    return response.incomplete_details?.reason === "content_filter" ? "content_filter" : "length";
  }
  return stopWithCalls("stop", madeCalls);
}
