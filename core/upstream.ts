/**
 * Calls to upstreams: one attempt with a timeout tied to the client's signal, and failover
 * across channels. A failure before any byte reached the client (connect error, timeout, 408,
 * 409, 429, 5xx, or a channel credential refused with 401/403) moves on to the next channel,
 * never the same one twice; any other upstream answer is final.
 */

import type { Channel } from "./channel_schema.ts";
import { GatewayError } from "./errors.ts";

/** Why one attempt on one channel failed. */
export class UpstreamAttemptError extends Error {
  readonly retryable: boolean;
  readonly status?: number;
  readonly upstreamCode?: string;
  readonly retryAfter?: string;

  constructor(
    message: string,
    options: { retryable: boolean; status?: number; upstreamCode?: string; retryAfter?: string },
  ) {
    super(message);
    this.name = "UpstreamAttemptError";
    this.retryable = options.retryable;
    this.status = options.status;
    this.upstreamCode = options.upstreamCode;
    this.retryAfter = options.retryAfter;
  }
}

/** Statuses that say "this channel, now" rather than "this request". */
export function isRetryableStatus(status: number): boolean {
  return status === 401 || status === 403 || status === 408 || status === 409 || status === 429 ||
    status >= 500;
}

/** An in-flight upstream call: abort it, or extend its deadline while a stream is alive. */
export class UpstreamCall {
  readonly controller = new AbortController();
  #timer?: ReturnType<typeof setTimeout>;
  #timeoutMs: number;
  timedOut = false;
  /** Set when the client went away; the abort that follows is not an upstream failure. */
  clientAborted = false;

  constructor(timeoutMs: number, clientSignal: AbortSignal) {
    this.#timeoutMs = timeoutMs;
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
    }, this.#timeoutMs);
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

/** One attempt's record, for the request log and metrics. */
export interface AttemptRecord {
  channel_id: string;
  outcome: "ok" | "failed";
  error?: string;
}

/**
 * Runs `attempt` on channels in order until one succeeds, at most `maxAttempts` channels.
 * Throws the mapped error of the last failure when none succeeds.
 */
export async function withFailover<T>(
  order: readonly Channel[],
  maxAttempts: number,
  clientSignal: AbortSignal,
  attempt: (channel: Channel) => Promise<T>,
  onAttempt: (record: AttemptRecord) => void,
): Promise<{ result: T; channel: Channel }> {
  let lastError: UpstreamAttemptError | undefined;
  for (const channel of order.slice(0, Math.max(1, maxAttempts))) {
    if (clientSignal.aborted) break;
    try {
      const result = await attempt(channel);
      onAttempt({ channel_id: channel.id, outcome: "ok" });
      return { result, channel };
    } catch (error) {
      const failure = error instanceof UpstreamAttemptError
        ? error
        : new UpstreamAttemptError(`Upstream call failed: ${describe(error)}`, { retryable: true });
      onAttempt({ channel_id: channel.id, outcome: "failed", error: failure.message });
      if (!failure.retryable) throw finalError(failure);
      lastError = failure;
    }
  }
  if (clientSignal.aborted) {
    throw new GatewayError("client_closed_request", 499, "The client closed the request");
  }
  throw finalError(lastError!, true);
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.name === "AbortError" ? "timed out" : error.message;
  return String(error);
}

/** The client-facing error for an upstream failure. */
function finalError(failure: UpstreamAttemptError, exhausted = false): GatewayError {
  if (!exhausted && failure.status && failure.status < 500) {
    return new GatewayError(
      failure.upstreamCode ?? "upstream_rejected_request",
      failure.status,
      `The upstream rejected the request: ${failure.message}`,
    );
  }
  if (failure.status === 429) {
    return new GatewayError(
      "upstream_rate_limited",
      429,
      `Every channel for this model is rate limited: ${failure.message}`,
      { headers: failure.retryAfter ? { "retry-after": failure.retryAfter } : {} },
    );
  }
  return new GatewayError(
    "upstream_unavailable",
    502,
    `No channel could serve the request; last error: ${failure.message}`,
  );
}
