/**
 * One attempt of a text request on one channel: the upstream body (passed through when the
 * channel speaks the inbound format, converted otherwise), the call, and either the whole JSON
 * answer or the stream's first event (so a stream that dies before it can still fail over).
 */

import type { Channel } from "../channels/channel_schema.ts";
import { GatewayError } from "../errors.ts";
import { CODECS } from "../formats/codecs.ts";
import { findTextInterface } from "../formats/interfaces.ts";
import type { TextFormat } from "../formats/neutral.ts";
import { providerOf, textFormatOf, upstreamTarget } from "../providers/provider_table.ts";
import { networkFailure, UpstreamAttemptError, type UpstreamCall } from "../upstream/attempt.ts";
import { type AttemptTrace } from "../upstream/failover.ts";
import { openUpstream, readAnswer } from "../upstream/call.ts";
import { decodeSseStream } from "../upstream/sse_events.ts";
import type { UpstreamEvent, UpstreamEvents } from "../upstream/upstream_events.ts";
import type { ClientHints } from "../providers/client_hints.ts";
import type { TextInbound } from "./inbound.ts";
import { passThroughBody } from "./pass_through.ts";
import { withoutForeignReasoning } from "../formats/foreign_reasoning.ts";

/** Stream idle time of channels stored before `stream_idle_ms` existed. */
const DEFAULT_STREAM_IDLE_MS = 60_000;

/** What every attempt learned: the channel's format, the model's name there, dropped fields. */
interface AttemptBase {
  format: TextFormat;
  upstreamModel: string;
  ignored: string[];
}

export interface JsonAttempt extends AttemptBase {
  kind: "json";
  /** The upstream's answer as parsed JSON; its format's codec reads it (answer_schemas.ts). */
  answer: unknown;
}

export interface StreamAttempt extends AttemptBase {
  kind: "stream";
  call: UpstreamCall;
  first: UpstreamEvent;
  events: UpstreamEvents;
}

export type TextAttempt = JsonAttempt | StreamAttempt;

/**
 * The channels that can serve `inbound`: all of them, unless it uses a field only its own
 * format has (or, with `strict`, one that other formats would drop); then only those, or a 400
 * that names the interface to use instead.
 */
export function servableOrder(
  order: Channel[],
  inbound: TextInbound,
  { strict = false }: { strict?: boolean } = {},
): Channel[] {
  const exclusive = inbound.exclusive ?? (strict ? inbound.strictExclusive : null);
  if (!exclusive) return order;
  const formatOf = (channel: Channel) => textFormatOf(channel, inbound.model);
  const own = order.filter((channel) => formatOf(channel) === inbound.format);
  if (own.length) return own;
  const formats = [...new Set(order.map(formatOf))];
  throw new GatewayError(
    "unsupported_on_channel",
    400,
    `'${exclusive}' needs an upstream that speaks this interface, and '${inbound.model}' ` +
      `is served here by upstreams that speak another. Drop '${exclusive}', or send the ` +
      `request to ${
        formats.flatMap((format) => findTextInterface(format)?.route ?? []).join(" or ")
      } instead` +
      (exclusive === inbound.exclusive ? "" : ", or leave strict fields off to have it dropped"),
    { param: exclusive },
  );
}

/** The upstream body for a channel of `format`, and the inbound fields it could not carry. */
function upstreamBody(
  inbound: TextInbound,
  input: { format: TextFormat; upstreamModel: string; maxOutput: number },
): { body: string; ignored: string[] } {
  if (input.format === inbound.format) {
    const own = withoutForeignReasoning(inbound.format, inbound.body);
    return {
      body: passThroughBody({ ...inbound, body: own.body }, input.upstreamModel),
      ignored: own.dropped,
    };
  }
  const neutral = inbound.neutral();
  const { body, ignored } = CODECS[input.format].encodeRequest(neutral, {
    model: input.upstreamModel,
    defaultMaxTokens: input.maxOutput,
  });
  return {
    body: JSON.stringify(body),
    ignored: [...ignored.map((name) => neutral.fieldOf[name] ?? name), ...neutral.unmapped],
  };
}

/**
 * An upstream's refusal of the request, saying which of the client's hints the channel removed
 * (a beta the upstream needed for a field of the body is the likely cause).
 */
function withRemovedHints(error: unknown, removed: string[]): unknown {
  if (
    !removed.length || !(error instanceof UpstreamAttemptError) || error.retryable ||
    !error.status || error.status >= 500
  ) return error;
  return new UpstreamAttemptError(
    `${error.message} (this channel's settings removed ${removed.join(", ")}; ask the ` +
      `gateway's operator to allow ${removed.length > 1 ? "them" : "it"}, or leave out the ` +
      `fields that need ${removed.length > 1 ? "them" : "it"})`,
    {
      retryable: false,
      status: error.status,
      upstreamCode: error.upstreamCode,
      retryAfter: error.retryAfter,
      errorClass: error.errorClass,
    },
  );
}

/** One attempt of `inbound` on `channel`. */
export async function attemptText(
  channel: Channel,
  inbound: TextInbound,
  options: {
    hints: ClientHints;
    maxOutput: number;
    maxBytes: number;
    /** The largest stream event read; a larger one fails the attempt or breaks the stream. */
    maxEventBytes: number;
    signal: AbortSignal;
    trace: AttemptTrace;
  },
): Promise<TextAttempt> {
  const provider = providerOf(channel);
  const format = textFormatOf(channel, inbound.model);
  const target = upstreamTarget(channel, inbound.model, options.trace);
  const { body, ignored } = upstreamBody(inbound, {
    format,
    upstreamModel: target.model,
    maxOutput: options.maxOutput,
  });
  const removedHints = provider.text!.removedHints?.(channel, options.hints) ?? [];
  const base: AttemptBase = {
    format,
    upstreamModel: target.model,
    ignored: [...ignored, ...removedHints],
  };
  const { response, call } = await openUpstream(
    channel,
    provider.text!.request(target, { stream: inbound.stream, body, hints: options.hints }),
    { signal: options.signal, errors: provider.errors, trace: options.trace },
  ).catch((error) => {
    throw withRemovedHints(error, removedHints);
  });
  try {
    if (!inbound.stream) {
      const text = await readAnswer(response, { call, maxBytes: options.maxBytes });
      try {
        return { ...base, kind: "json", answer: JSON.parse(text) };
      } catch {
        throw new UpstreamAttemptError("bad_answer: the upstream answered with invalid JSON", {
          retryable: true,
        });
      }
    }
    if (!response.body) {
      throw new UpstreamAttemptError("bad_answer: the upstream sent no stream", {
        retryable: true,
      });
    }
    // The provider's framing (SSE unless it says otherwise) gives the events of its format.
    const decodeStream = provider.text!.decodeStream ?? decodeSseStream;
    const events = decodeStream(response, { maxEventBytes: options.maxEventBytes });
    const first = await events.read();
    if (first.done) {
      throw new UpstreamAttemptError("bad_answer: the upstream stream ended before any event", {
        retryable: true,
      });
    }
    call.streaming(channel.stream_idle_ms ?? DEFAULT_STREAM_IDLE_MS);
    return { ...base, kind: "stream", call, first: first.value, events };
  } catch (error) {
    call.abort();
    throw networkFailure(error, call);
  }
}
