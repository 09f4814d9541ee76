/**
 * One upstream call: fetch with the channel's timeout tied to the client's signal, an error
 * answer read in the provider's dialect, a thrown fetch turned into an attributed failure.
 */

import type { Channel } from "../channels/channel_schema.ts";
import { networkFailure, UpstreamCall } from "./attempt.ts";
import type { AttemptTrace } from "./failover.ts";
import { type ErrorDialect, readUpstreamError } from "./error_reader.ts";

/** A request ready to send. */
export interface UpstreamRequest {
  url: string;
  init: RequestInit;
}

export interface CallOptions {
  /** The client's (or the task run's) signal. */
  signal: AbortSignal;
  /** How this upstream writes its errors. */
  errors: ErrorDialect;
  /** Receives the URL, for the attempt's record. */
  trace?: AttemptTrace;
}

/**
 * Sends `request` to `channel` and returns the OK response with its live call (whose deadline a
 * stream keeps touching). Any failure is an `UpstreamAttemptError`.
 */
export async function openUpstream(
  channel: Channel,
  request: UpstreamRequest,
  options: CallOptions,
): Promise<{ response: Response; call: UpstreamCall }> {
  if (options.trace) options.trace.url = request.url;
  const call = new UpstreamCall(channel.timeout_ms, options.signal);
  try {
    const response = await fetch(request.url, { ...request.init, signal: call.signal });
    if (!response.ok) throw await readUpstreamError(response, options.errors);
    return { response, call };
  } catch (error) {
    call.abort();
    throw networkFailure(error, call);
  }
}

/** Sends `request` and reads the whole answer as text. */
export async function callUpstream(
  channel: Channel,
  request: UpstreamRequest,
  options: CallOptions,
): Promise<string> {
  const { response, call } = await openUpstream(channel, request, options);
  try {
    const text = await response.text();
    call.done();
    return text;
  } catch (error) {
    call.abort();
    throw networkFailure(error, call);
  }
}
