/** The one error type of the gateway. Routes render it in their interface's own envelope. */

/** Neutral error kinds; each envelope maps them to its own type names. */
export type ErrorKind =
  | "invalid_request"
  | "authentication"
  | "permission"
  | "not_found"
  | "payment_required"
  | "request_too_large"
  | "rate_limit"
  | "upstream"
  | "unavailable"
  | "internal";

export interface GatewayErrorOptions {
  /** The request field the error is about, when there is one. */
  param?: string;
  /** Extra response headers, e.g. `retry-after`. */
  headers?: Record<string, string>;
  /** Whether a client may retry the same request. Sets `x-should-retry`. */
  retryable?: boolean;
  /**
   * How the last upstream attempt failed, when the error is an upstream failure: its status (in
   * standard terms: Anthropic's 529 is a 503) and error class. Envelopes that tell an overloaded
   * or timed-out upstream apart from other failures read it (Anthropic's 529 and 504).
   */
  upstream?: UpstreamFailure;
}

/** The last upstream attempt's failure behind a gateway error. */
export interface UpstreamFailure {
  status?: number;
  /** `timeout`, `http_503`, `connect_refused`, … (core/telemetry/request_log.ts). */
  errorClass: string;
}

const KIND_BY_STATUS: Record<number, ErrorKind> = {
  400: "invalid_request",
  401: "authentication",
  402: "payment_required",
  403: "permission",
  404: "not_found",
  413: "request_too_large",
  429: "rate_limit",
  502: "upstream",
  503: "unavailable",
};

/** An error with a stable machine `code`, an HTTP status and a message a person can act on. */
export class GatewayError extends Error {
  readonly code: string;
  readonly status: number;
  readonly kind: ErrorKind;
  readonly param?: string;
  readonly headers: Record<string, string>;
  readonly retryable?: boolean;
  readonly upstream?: UpstreamFailure;

  constructor(code: string, status: number, message: string, options: GatewayErrorOptions = {}) {
    super(message);
    this.name = "GatewayError";
    this.code = code;
    this.status = status;
    this.kind = KIND_BY_STATUS[status] ?? (status >= 500 ? "internal" : "invalid_request");
    this.param = options.param;
    this.headers = options.headers ?? {};
    this.retryable = options.retryable;
    this.upstream = options.upstream;
  }
}

/** A 400 about one request field. */
export function invalidRequest(message: string, param?: string, code = "invalid_request") {
  return new GatewayError(code, 400, message, { param });
}

/** Turns anything thrown into a GatewayError, hiding internals of unexpected errors. */
export function toGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  return new GatewayError("internal_error", 500, "The gateway failed to handle this request");
}
