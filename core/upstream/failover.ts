/**
 * Failover across channels: a failure before any byte reached the client moves to the next
 * channel, never the same one twice; each attempt is recorded (channel, URL without query,
 * outcome, the upstream's HTTP status whether it passed or failed, error class, latency) and
 * counted in `gateway_upstream_attempts_total` and the per-channel latency histogram. With the
 * breakers given, a channel or key they hold open or aside is skipped first, at no cost: a
 * `skipped` record, no call, no attempt used up (core/channels/breaker_board.ts).
 */

import type { BreakerBoard, ChannelPass } from "../channels/breaker_board.ts";
import type { Channel } from "../channels/channel_schema.ts";
import { GatewayError } from "../errors.ts";
import type { Metrics } from "../telemetry/metrics.ts";
import type { AttemptRecord } from "../telemetry/request_log.ts";
import { UpstreamAttemptError } from "./attempt.ts";
import { breakerFault } from "./breaker_fault.ts";

/** What an attempt tells its failover loop about itself. */
export interface AttemptTrace {
  /** The URL the attempt called; set by the attempt before it calls. */
  url?: string;
  /** The upstream's HTTP status, once an answer came (a success's too). */
  status?: number;
  /** The fingerprint of the channel key the attempt used (set with the key). */
  keyFingerprint?: string;
}

/** Hears each attempt's outcome (automatic disabling counts refusals and failures by it). */
export type AttemptObserver = (attempt: {
  channel: Channel;
  keyFingerprint?: string;
  outcome: "ok" | "failed";
  failure?: UpstreamAttemptError;
}) => void;

export interface FailoverOptions {
  /** At most this many channels are tried (at least one). */
  maxAttempts: number;
  /** The client's signal: once aborted, no further channel is tried. */
  signal: AbortSignal;
  /** Counts `gateway_upstream_attempts_total` by channel and outcome. */
  metrics: Metrics;
  /** Receives each attempt's record as it ends. */
  log?: AttemptRecord[];
  /**
   * The breakers: a channel or key they hold open or aside is skipped at no cost (an attempt
   * record `skipped`, no call), and each attempt's outcome is counted in them.
   */
  breakers?: BreakerBoard;
  /** Hears each attempt's outcome (core/channels/auto_disabler.ts). */
  observe?: AttemptObserver;
}

/**
 * `url` as an attempt's record keeps it: without query, fragment or `user:password@` (a channel
 * stored before base_url refused credentials may still have them).
 */
export function loggedUrl(url: string | undefined): string | null {
  if (!url) return null;
  const cut = url.search(/[?#]/);
  return (cut === -1 ? url : url.slice(0, cut)).replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/]*@/i, "$1");
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
  const skips: Array<ChannelPass & { kind: "skip" }> = [];
  let attempts = 0;
  const { breakers } = options;
  for (const routed of order) {
    if (options.signal.aborted || attempts >= Math.max(1, options.maxAttempts)) break;
    const pass = breakers ? await breakers.admit(routed) : undefined;
    if (pass?.kind === "skip") {
      skips.push(pass);
      options.metrics.add("gateway_upstream_skips_total", {
        channel: routed.id,
        reason: pass.reason,
      });
      options.log?.push({
        channel_id: routed.id,
        url: null,
        outcome: "skipped",
        reason: pass.reason,
      });
      continue;
    }
    attempts++;
    const channel = pass?.channel ?? routed;
    const trace: AttemptTrace = {};
    const startedAt = performance.now();
    const record = (outcome: "ok" | "failed", failure?: UpstreamAttemptError) => {
      const status = failure?.status ?? trace.status;
      const latencyMs = performance.now() - startedAt;
      options.metrics.add("gateway_upstream_attempts_total", { channel: channel.id, outcome });
      options.metrics.observe(
        "gateway_upstream_latency_seconds",
        { channel: channel.id },
        latencyMs / 1000,
      );
      options.log?.push({
        channel_id: channel.id,
        url: loggedUrl(trace.url),
        outcome,
        ...(failure && { error_class: failure.errorClass }),
        ...(status !== undefined && { status }),
        ...(failure && { error: failure.message }),
        latency_ms: Math.round(latencyMs * 100) / 100,
      });
      options.observe?.({ channel, keyFingerprint: trace.keyFingerprint, outcome, failure });
    };
    try {
      const result = await attempt(channel, trace);
      record("ok");
      if (pass) breakers!.succeeded(pass, routed);
      return { result, channel };
    } catch (error) {
      const failure = error instanceof UpstreamAttemptError ? error : new UpstreamAttemptError(
        `bad_answer: ${error instanceof Error ? error.message : String(error)}`,
        { retryable: true, errorClass: "bad_answer" },
      );
      record("failed", failure);
      if (pass) breakers!.failed(pass, routed, breakerFault(failure));
      lastChannel = channel;
      if (!failure.retryable && failure.errorClass !== "client_closed") {
        throw finalError(failure, channel);
      }
      lastError = failure;
    }
  }
  if (!lastError && skips.length && !options.signal.aborted) {
    throw everyChannelSkipped(skips, order, breakers!.now());
  }
  if (options.signal.aborted || !lastError) {
    throw new GatewayError("client_closed_request", 499, "The client closed the request");
  }
  throw finalError(lastError, lastChannel!, true);
}

/**
 * Every channel was skipped by its breakers: a 429 with the soonest `retry-after` when a 429's
 * retry-after set one aside, else a 503 with the soonest end of a cooldown.
 */
function everyChannelSkipped(
  skips: ReadonlyArray<ChannelPass & { kind: "skip" }>,
  order: readonly Channel[],
  now: number,
): GatewayError {
  const aside = skips.filter((skip) => skip.reason === "retry_after");
  const soonest = Math.min(...(aside.length ? aside : skips).map((skip) => skip.until));
  const headers: Record<string, string> = {
    "x-gateway-channel": order[0].id,
    "retry-after": String(Math.max(1, Math.ceil((soonest - now) / 1000))),
  };
  if (aside.length) {
    return new GatewayError(
      "upstream_rate_limited",
      429,
      "Every channel for this model is rate limited by its upstream; retry after the time given",
      { headers },
    );
  }
  return new GatewayError(
    "upstream_unavailable",
    503,
    "Every channel for this model failed recently and is cooling down; retry after the time given",
    { headers },
  );
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
    { headers, upstream: { status: failure.status, errorClass: failure.errorClass } },
  );
}
