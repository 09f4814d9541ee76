/**
 * One attempt on an upstream: the call with its deadline tied to the client's signal, and why an
 * attempt failed, as an error class an operator can act on. Which failures move on to the next
 * channel: connect errors, timeouts, 404, 408, 409, 429, 5xx, and a channel credential refused
 * with 401/403; any other upstream answer is final.
 */

import type { UpstreamErrorClass } from "../telemetry/request_log.ts";
import { Deadline } from "../util/deadline.ts";

/** Why one attempt on one channel failed. */
export class UpstreamAttemptError extends Error {
  readonly retryable: boolean;
  readonly status?: number;
  readonly upstreamCode?: string;
  readonly retryAfter?: string;
  readonly errorClass: UpstreamErrorClass;

  constructor(
    message: string,
    options: {
      retryable: boolean;
      status?: number;
      upstreamCode?: string;
      retryAfter?: string;
      errorClass?: UpstreamErrorClass;
    },
  ) {
    super(message);
    this.name = "UpstreamAttemptError";
    this.retryable = options.retryable;
    this.status = options.status;
    this.upstreamCode = options.upstreamCode;
    this.retryAfter = options.retryAfter;
    this.errorClass = options.errorClass ??
      (options.status ? `http_${options.status}` : "bad_answer");
  }
}

/**
 * Statuses that say "this channel, now" rather than "this request". A 404 is the channel's:
 * the client asked for a catalog model at a gateway path, so a wrong base URL or model map
 * upstream is not the client's fault.
 */
export function isRetryableStatus(status: number): boolean {
  return status === 401 || status === 403 || status === 404 || status === 408 ||
    status === 409 || status === 429 || status >= 500;
}

/**
 * Whether a failed attempt may have been carried out upstream with its answer lost: the call's
 * deadline passed (`timeout`), or a gateway in front of the upstream gave up waiting (504, and
 * Cloudflare's 524). Retrying it elsewhere is safe only for work that is not a billable task
 * submission (workers/video_task.ts holds those instead of submitting them twice).
 */
export function isUnanswered(
  failure: Pick<UpstreamAttemptError, "errorClass" | "status">,
): boolean {
  return failure.errorClass === "timeout" || failure.status === 504 || failure.status === 524;
}

const NETWORK_CLASSES: Array<[RegExp, UpstreamErrorClass, string]> = [
  [/connection refused/i, "connect_refused", "the upstream refused the connection"],
  [
    /dns error|failed to lookup|name or service not known|no address associated/i,
    "dns",
    "the upstream's host name did not resolve",
  ],
  [
    /certificate|tls|ssl|handshake|received corrupt message|alert/i,
    "tls",
    "the TLS handshake with the upstream failed",
  ],
  [
    /reset|broken pipe|connection closed|unexpected eof|error reading a body|incomplete message/i,
    "reset",
    "the upstream closed the connection",
  ],
];

/**
 * The attempt error for a fetch that threw (no HTTP answer). The message names the class, not
 * the raw error, which may quote the URL with its query.
 */
export function networkFailure(error: unknown, call: UpstreamCall): UpstreamAttemptError {
  if (error instanceof UpstreamAttemptError) return error;
  if (call.timedOut) {
    return new UpstreamAttemptError(`timeout: no answer within ${call.timeoutMs} ms`, {
      retryable: true,
      errorClass: "timeout",
    });
  }
  if (call.clientAborted) {
    return new UpstreamAttemptError("the client closed the request", {
      retryable: false,
      errorClass: "client_closed",
    });
  }
  const { errorClass, message } = networkProblem(error);
  return new UpstreamAttemptError(`${errorClass}: ${message}`, { retryable: true, errorClass });
}

/**
 * The class of a fetch that threw, and its description in the gateway's words (the raw error
 * may quote the URL with its query, and is the runtime's text, not the client's).
 */
export function networkProblem(
  error: unknown,
): { errorClass: UpstreamErrorClass; message: string } {
  const text = error instanceof Error ? `${error.message} ${String(error.cause ?? "")}` : "";
  for (const [pattern, errorClass, message] of NETWORK_CLASSES) {
    if (pattern.test(text)) return { errorClass, message };
  }
  return { errorClass: "network", message: "the upstream could not be reached" };
}

/**
 * An in-flight upstream call: abort it, or extend its deadline while a stream is alive. Its one
 * AbortSignal ends the fetch on the client's disconnect and on the deadline, and its one timer
 * is moved, not replaced, by each touch (core/util/deadline.ts).
 */
export class UpstreamCall {
  readonly controller = new AbortController();
  readonly #deadline: Deadline;
  #streamIdleMs: number | undefined;
  timedOut = false;
  /** Set when the client went away; the abort that follows is not an upstream failure. */
  clientAborted = false;

  constructor(timeoutMs: number, clientSignal: AbortSignal) {
    this.#deadline = new Deadline(timeoutMs, () => {
      this.timedOut = true;
      this.controller.abort();
    });
    const onClientAbort = () => {
      this.clientAborted = true;
      this.abort();
    };
    if (clientSignal.aborted) onClientAbort();
    else clientSignal.addEventListener("abort", onClientAbort, { once: true });
  }

  /** The current deadline: time to the first byte, then the idle time allowed while streaming. */
  get timeoutMs(): number {
    return this.#streamIdleMs ?? this.#deadline.ms;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Restarts the deadline; with `timeoutMs`, from now on the deadline is that long. */
  touch(timeoutMs?: number): void {
    this.#deadline.touch(timeoutMs);
  }

  /**
   * The stream's first event is in: the deadline stops, and `idleMs` is the silence allowed from
   * now on, kept by the stream's pump with its own timer (not a timer re-armed here first).
   */
  streaming(idleMs: number): void {
    this.#deadline.stop();
    this.#streamIdleMs = idleMs;
  }

  /** Stops the deadline once the call is finished. */
  done(): void {
    this.#deadline.stop();
  }

  abort(): void {
    this.#deadline.stop();
    this.controller.abort();
  }
}
