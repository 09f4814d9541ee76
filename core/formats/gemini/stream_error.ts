/**
 * A generate-content in-stream error (pure): Google's envelope, its status after the failure's code.
 * The HTTP status is already 200, so the error object says what went wrong, as Google's does.
 */

import { geminiErrorBody } from "./error_body.ts";

/** Codes that name a timeout: the gateway's `upstream_timeout`, Google's, Anthropic's, OpenAI's. */
const isTimeoutCode = (code: string) =>
  code === "DEADLINE_EXCEEDED" || /timeout|timed_out/i.test(code);

/**
 * The error object of a stream ended with `code`: 504 `DEADLINE_EXCEEDED` when it names a timeout
 * (an upstream gone silent longer than `stream_idle_ms`), else 500 `INTERNAL` (a stream cut short,
 * an upstream's in-stream error).
 */
export function geminiStreamError(message: string, code: string) {
  const httpStatus = isTimeoutCode(code) ? 504 : 500;
  return geminiErrorBody({ httpStatus, message, code }).body;
}
