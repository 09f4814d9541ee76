/**
 * Google's error envelope (`google.rpc.Status` as the JSON APIs write it:
 * `{error: {code, message, status, details}}`). The status name comes from the gateway's HTTP
 * status, and the HTTP status from the name, as `google.rpc.Code` maps them, so the two always
 * agree (a gateway 502 is 503 UNAVAILABLE; a 413 is 400 INVALID_ARGUMENT). The gateway's code is
 * the `reason` of an `ErrorInfo`, written as Google requires reasons: UPPER_SNAKE_CASE.
 */

/** The HTTP status of each `google.rpc.Code` (google/rpc/code.proto). */
export const HTTP_STATUS_OF_GOOGLE_CODE = {
  OK: 200,
  CANCELLED: 499,
  UNKNOWN: 500,
  INVALID_ARGUMENT: 400,
  DEADLINE_EXCEEDED: 504,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  PERMISSION_DENIED: 403,
  UNAUTHENTICATED: 401,
  RESOURCE_EXHAUSTED: 429,
  FAILED_PRECONDITION: 400,
  ABORTED: 409,
  OUT_OF_RANGE: 400,
  UNIMPLEMENTED: 501,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  DATA_LOSS: 500,
} as const;

export type GoogleCode = keyof typeof HTTP_STATUS_OF_GOOGLE_CODE;

/** The google code of each HTTP status the gateway answers with. */
const GOOGLE_CODE_OF_STATUS: Record<number, GoogleCode> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  // Not enough balance: the key is not in the state the call needs (no HTTP 402 in Google's map).
  402: "FAILED_PRECONDITION",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  // The client stopped sending its body.
  408: "DEADLINE_EXCEEDED",
  409: "ABORTED",
  410: "NOT_FOUND",
  412: "FAILED_PRECONDITION",
  // Google has no code for a body too large; its API answers one with 400 INVALID_ARGUMENT.
  413: "INVALID_ARGUMENT",
  416: "OUT_OF_RANGE",
  422: "INVALID_ARGUMENT",
  429: "RESOURCE_EXHAUSTED",
  499: "CANCELLED",
  500: "INTERNAL",
  501: "UNIMPLEMENTED",
  502: "UNAVAILABLE",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
  // Anthropic's "overloaded".
  529: "UNAVAILABLE",
};

/** The google code for an HTTP status of the gateway's. */
export function googleCodeOf(httpStatus: number): GoogleCode {
  return GOOGLE_CODE_OF_STATUS[httpStatus] ?? (httpStatus >= 500 ? "INTERNAL" : "INVALID_ARGUMENT");
}

/**
 * A gateway code as an `ErrorInfo.reason`: `[A-Z][A-Z0-9_]+[A-Z0-9]`, at most 63 characters
 * (`insufficient_balance` → `INSUFFICIENT_BALANCE`).
 */
export function errorInfoReason(code: string): string {
  let reason = code.toUpperCase().replace(/[^A-Z0-9]+/g, "_").replace(/^_+|_+$/g, "");
  if (!/^[A-Z]/.test(reason)) reason = `ERROR_${reason}`.replace(/_+$/, "");
  return reason.slice(0, 63).replace(/_+$/, "");
}

/** The error domain of the gateway's own reasons. */
export const ERROR_DOMAIN = "gateway";

export interface GeminiErrorInput {
  /** The gateway's HTTP status for the error; the envelope's own follows from its google code. */
  httpStatus: number;
  message: string;
  /** The gateway's machine code, e.g. `insufficient_balance`. */
  code: string;
  requestId?: string;
  /** Seconds the client should wait, as `retry-after` says; adds a `RetryInfo`. */
  retryAfterSeconds?: number;
}

/** The envelope and the HTTP status to send it with. */
export function geminiErrorBody(input: GeminiErrorInput): {
  status: number;
  body: { error: { code: number; message: string; status: GoogleCode; details: unknown[] } };
} {
  const googleCode = googleCodeOf(input.httpStatus);
  const status = HTTP_STATUS_OF_GOOGLE_CODE[googleCode];
  const details: unknown[] = [{
    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
    reason: errorInfoReason(input.code),
    domain: ERROR_DOMAIN,
    ...(input.requestId ? { metadata: { request_id: input.requestId } } : {}),
  }];
  if (input.retryAfterSeconds !== undefined) {
    details.push({
      "@type": "type.googleapis.com/google.rpc.RetryInfo",
      retryDelay: `${input.retryAfterSeconds}s`,
    });
  }
  return {
    status,
    body: { error: { code: status, message: input.message, status: googleCode, details } },
  };
}
