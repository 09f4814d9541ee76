/**
 * One upstream call: fetch with the channel's timeout tied to the client's signal, an error
 * answer read in the provider's dialect, a thrown fetch turned into an attributed failure.
 */

import type { Channel } from "../channels/channel_schema.ts";
import { readLimited } from "../util/read_limited.ts";
import { networkFailure, UpstreamAttemptError, UpstreamCall } from "./attempt.ts";
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
  /** Receives the URL and the answer's HTTP status, for the attempt's record. */
  trace?: AttemptTrace;
  /** The largest whole answer read (`callUpstream`); larger is a failed attempt. */
  maxBytes?: number;
}

/**
 * A request whose building finished (a provider may sign it, or fetch a token first). A build
 * that fails is a failed attempt on the channel, described in the gateway's words (the error's
 * own text may quote a credential).
 */
export async function builtRequest<T>(request: T | Promise<T>): Promise<T> {
  try {
    return await request;
  } catch (error) {
    if (error instanceof UpstreamAttemptError) throw error;
    throw new UpstreamAttemptError("network: the upstream request could not be built", {
      retryable: true,
      errorClass: "network",
    });
  }
}

const decoder = new TextDecoder();

/** The largest non-stream upstream answer read when the caller sets none. */
export const DEFAULT_MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/**
 * Sends `request` (once built) to `channel` and returns the OK response with its live call (whose deadline a
 * stream's pump takes over). Any failure is an `UpstreamAttemptError`. Redirects are never followed
 * (they would carry the channel's key to another host): a 3xx is a failed attempt. Error text is
 * read bounded and with the channel's keys and anything key-shaped removed.
 */
export async function openUpstream(
  channel: Channel,
  built: UpstreamRequest | Promise<UpstreamRequest>,
  options: CallOptions,
): Promise<{ response: Response; call: UpstreamCall }> {
  const request = await builtRequest(built);
  if (options.trace) options.trace.url = request.url;
  const call = new UpstreamCall(channel.timeout_ms, options.signal);
  try {
    const response = await fetch(request.url, {
      ...request.init,
      redirect: "manual",
      signal: call.signal,
    });
    if (options.trace) options.trace.status = response.status;
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      throw new UpstreamAttemptError(
        `redirect: the upstream answered ${response.status}; redirects are not followed`,
        { retryable: true, errorClass: `http_${response.status}` },
      );
    }
    if (!response.ok) {
      throw await readUpstreamError(response, { dialect: options.errors, secrets: channel.keys });
    }
    return { response, call };
  } catch (error) {
    call.abort();
    throw networkFailure(error, call);
  }
}

/** Reads `response`'s whole body, failing the attempt once it passes `maxBytes`. */
export async function readAnswer(
  response: Response,
  limits: { call: UpstreamCall; maxBytes: number },
): Promise<string> {
  return decoder.decode(await readAnswerBytes(response, limits));
}

/** `readAnswer`'s bytes, undecoded: for answers passed on as they came. */
export async function readAnswerBytes(
  response: Response,
  { call, maxBytes }: { call: UpstreamCall; maxBytes: number },
): Promise<Uint8Array> {
  try {
    if (!response.body) return new Uint8Array();
    // A declared length within the limit is all the body can be (HTTP framing holds it to
    // that): read it whole, natively, without a JS read loop.
    const declared = Number(response.headers.get("content-length") ?? NaN);
    if (declared <= maxBytes) {
      const bytes = await response.bytes();
      call.done();
      return bytes;
    }
    const bytes = await readLimited(response.body, {
      maxBytes,
      tooLarge: () =>
        new UpstreamAttemptError(
          `too_large: the upstream's answer is larger than ${maxBytes} bytes`,
          { retryable: true, errorClass: "too_large" },
        ),
    });
    call.done();
    return bytes;
  } catch (error) {
    call.abort();
    throw networkFailure(error, call);
  }
}

/** Sends `request` and reads the whole answer as text, at most `maxBytes` of it. */
export async function callUpstream(
  channel: Channel,
  request: UpstreamRequest | Promise<UpstreamRequest>,
  options: CallOptions,
): Promise<string> {
  return decoder.decode(await callUpstreamBytes(channel, request, options));
}

/** `callUpstream`'s answer as bytes, undecoded. */
export async function callUpstreamBytes(
  channel: Channel,
  request: UpstreamRequest | Promise<UpstreamRequest>,
  options: CallOptions,
): Promise<Uint8Array> {
  const { response, call } = await openUpstream(channel, request, options);
  return await readAnswerBytes(response, {
    call,
    maxBytes: options.maxBytes ?? DEFAULT_MAX_ANSWER_BYTES,
  });
}
