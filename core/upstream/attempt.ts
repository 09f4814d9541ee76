/**
 * Calls to upstreams: one attempt with a timeout tied to the client's signal, and failover
 * across channels. A failure before any byte reached the client (connect error, timeout, 404,
 * 408, 409, 429, 5xx, or a channel credential refused with 401/403) moves on to the next
 * channel, never the same one twice; any other upstream answer is final.
 * Every attempt is recorded (channel, URL without query, outcome, error class, latency) so an
 * operator can see which channel failed and why.
 */

import type { Channel } from "../channels/channel_schema.ts";
import { GatewayError } from "../errors.ts";
import type { Metrics } from "../telemetry/metrics.ts";
import type { AttemptRecord, UpstreamErrorClass } from "../telemetry/request_log.ts";

export type { AttemptRecord, UpstreamErrorClass };

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
  const text = error instanceof Error ? `${error.message} ${String(error.cause ?? "")}` : "";
  for (const [pattern, errorClass, message] of NETWORK_CLASSES) {
    if (pattern.test(text)) {
      return new UpstreamAttemptError(`${errorClass}: ${message}`, { retryable: true, errorClass });
    }
  }
  return new UpstreamAttemptError("network: the upstream could not be reached", {
    retryable: true,
    errorClass: "network",
  });
}

/** An in-flight upstream call: abort it, or extend its deadline while a stream is alive. */
export class UpstreamCall {
  readonly controller = new AbortController();
  readonly timeoutMs: number;
  #timer?: ReturnType<typeof setTimeout>;
  timedOut = false;
  /** Set when the client went away; the abort that follows is not an upstream failure. */
  clientAborted = false;

  constructor(timeoutMs: number, clientSignal: AbortSignal) {
    this.timeoutMs = timeoutMs;
    const onClientAbort = () => {
      this.clientAborted = true;
      this.abort();
    };
    if (clientSignal.aborted) onClientAbort();
    else clientSignal.addEventListener("abort", onClientAbort, { once: true });
    this.touch();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Restarts the idle deadline. */
  touch(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort();
    }, this.timeoutMs);
  }

  /** Stops the deadline once the call is finished. */
  done(): void {
    clearTimeout(this.#timer);
  }

  abort(): void {
    clearTimeout(this.#timer);
    this.controller.abort();
  }
}

/** What an attempt tells its failover loop about itself. */
export interface AttemptTrace {
  /** The URL the attempt called; set by the attempt before it calls. */
  url?: string;
}

export interface FailoverOptions {
  /** At most this many channels are tried (at least one). */
  maxAttempts: number;
  /** The client's signal: once aborted, no further channel is tried. */
  signal: AbortSignal;
  /** Counts `gateway_upstream_attempts_total` by channel and outcome. */
  metrics: Metrics;
  /** Receives each attempt's record as it ends. */
  log?: AttemptRecord[];
}

/** `url` without query or fragment. */
export function urlWithoutQuery(url: string | undefined): string | null {
  if (!url) return null;
  const cut = url.search(/[?#]/);
  return cut === -1 ? url : url.slice(0, cut);
}

/**
 * Runs `attempt` on channels in order until one succeeds, at most `maxAttempts` channels.
 * Throws the mapped error of the last failure when none succeeds; it carries
 * `x-gateway-channel` naming the last channel tried.
 */
export async function withFailover<T>(
  order: readonly Channel[],
  attempt: (channel: Channel, trace: AttemptTrace) => Promise<T>,
  options: FailoverOptions,
): Promise<{ result: T; channel: Channel }> {
  let lastError: UpstreamAttemptError | undefined;
  let lastChannel: Channel | undefined;
  for (const channel of order.slice(0, Math.max(1, options.maxAttempts))) {
    if (options.signal.aborted) break;
    const trace: AttemptTrace = {};
    const startedAt = performance.now();
    const record = (outcome: "ok" | "failed", failure?: UpstreamAttemptError) => {
      options.metrics.add("gateway_upstream_attempts_total", { channel: channel.id, outcome });
      options.log?.push({
        channel_id: channel.id,
        url: urlWithoutQuery(trace.url),
        outcome,
        ...(failure && {
          error_class: failure.errorClass,
          status: failure.status,
          error: failure.message,
        }),
        latency_ms: Math.round((performance.now() - startedAt) * 100) / 100,
      });
    };
    try {
      const result = await attempt(channel, trace);
      record("ok");
      return { result, channel };
    } catch (error) {
      const failure = error instanceof UpstreamAttemptError ? error : new UpstreamAttemptError(
        `bad_answer: ${error instanceof Error ? error.message : String(error)}`,
        { retryable: true, errorClass: "bad_answer" },
      );
      record("failed", failure);
      lastChannel = channel;
      if (!failure.retryable && failure.errorClass !== "client_closed") {
        throw finalError(failure, channel);
      }
      lastError = failure;
    }
  }
  if (options.signal.aborted || !lastError) {
    throw new GatewayError("client_closed_request", 499, "The client closed the request");
  }
  throw finalError(lastError, lastChannel!, true);
}

/** The client-facing error for an upstream failure on `channel`. */
function finalError(
  failure: UpstreamAttemptError,
  channel: Channel,
  exhausted = false,
): GatewayError {
  const headers: Record<string, string> = { "x-gateway-channel": channel.id };
  if (!exhausted && failure.status && failure.status < 500) {
    return new GatewayError(
      failure.upstreamCode ?? "upstream_rejected_request",
      failure.status,
      `The upstream rejected the request: ${failure.message}`,
      { headers },
    );
  }
  if (failure.status === 429) {
    if (failure.retryAfter) headers["retry-after"] = failure.retryAfter;
    return new GatewayError(
      "upstream_rate_limited",
      429,
      `Every channel for this model is rate limited: ${failure.message}`,
      { headers },
    );
  }
  return new GatewayError(
    "upstream_unavailable",
    502,
    `No channel could serve the request; the last, '${channel.id}', failed with ` +
      `${failure.errorClass}: ${failure.message.replace(/^[a-z_]+: /, "")}`,
    { headers },
  );
}
