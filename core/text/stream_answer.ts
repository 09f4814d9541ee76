/**
 * The streamed answer of a text request: each upstream event relayed (same format) or converted
 * (another format) as it arrives, and the bill settled once however the stream ends.
 */

import type { Channel } from "../channels/channel_schema.ts";
import { CODECS } from "../formats/codecs.ts";
import { textInterfaceOf } from "../formats/interfaces.ts";
import type { OwnRelayOptions, OwnStreamRelay } from "../formats/text_interface.ts";
import { restoreDeclaredCall } from "../formats/tool_names.ts";
import { pumpSse, type SsePumpHandlers } from "../upstream/sse_pump.ts";
import { StreamRedactor } from "../upstream/stream_redactor.ts";
import type { TokenUsage } from "../billing/usage.ts";
import type { TextInbound } from "./inbound.ts";
import { PassThroughStream } from "./pass_through.ts";
import { outputCharsOfEvent } from "./estimate.ts";
import type { TextBill } from "./text_bill.ts";
import type { StreamAttempt } from "./text_attempt.ts";

/** How one stream is relayed, and what it has delivered so far. */
interface StreamRelay {
  handlers: Omit<SsePumpHandlers, "finish">;
  usage(): TokenUsage | undefined;
  outputChars(): number;
}

/**
 * Same format, through the format's own relay (chat to chat: it rewrites only what it must, the
 * model name and the usage chunk).
 */
function ownRelay(
  attempt: StreamAttempt,
  inbound: TextInbound,
  own: (options: OwnRelayOptions) => OwnStreamRelay,
): StreamRelay {
  const relay = own({
    clientWantsUsage: inbound.includeUsage,
    upstreamModel: attempt.upstreamModel,
    publicModel: inbound.model,
  });
  // Only the codec and these two of the request are kept for the stream's life, not the body.
  const codec = textInterfaceOf(inbound.format).codec;
  const encoderOptions = { includeUsage: inbound.includeUsage, framing: inbound.framing };
  return {
    usage: () => relay.usage,
    outputChars: () => relay.outputChars,
    handlers: {
      frame(event) {
        const data = relay.relay(event.data);
        return data === null ? null : `data: ${data}\n\n`;
      },
      completed: () => relay.completed && relay.upstreamError === undefined,
      errorFrame: (message, code) =>
        relay.upstreamError !== undefined
          ? ""
          : codec.streamEncoder("", encoderOptions).error(message, code),
    },
  };
}

/** Same format: each event as it came, model renamed, read on the way past. */
function passThroughRelay(attempt: StreamAttempt, inbound: TextInbound): StreamRelay {
  const relay = new PassThroughStream({
    format: inbound.format,
    framing: inbound.framing,
    upstreamModel: attempt.upstreamModel,
    publicModel: inbound.model,
  });
  return {
    usage: () => relay.decoder.usage,
    outputChars: () => relay.outputChars,
    handlers: {
      frame: (event) => relay.frame(event),
      completed: () => relay.decoder.completed && relay.decoder.error === undefined,
      endFrame: () => relay.end(),
      errorFrame: (message, code) => relay.error(message, code),
    },
  };
}

/** Another format: decoded to neutral events, encoded in the client's format. */
function convertingRelay(attempt: StreamAttempt, inbound: TextInbound): StreamRelay {
  const decoder = CODECS[attempt.format].streamDecoder();
  const encoder = textInterfaceOf(inbound.format).codec.streamEncoder(inbound.model, inbound);
  const toolNames = inbound.neutral().toolNames;
  let chars = 0;
  let errorSent = false;
  return {
    usage: () => decoder.usage,
    outputChars: () => chars,
    handlers: {
      frame(event) {
        let out = "";
        for (const neutral of decoder.decode(event.event, event.data)) {
          if (neutral.type === "error") {
            if (!errorSent) out += encoder.error(neutral.message, neutral.code ?? "upstream_error");
            errorSent = true;
            continue;
          }
          if (errorSent) continue;
          chars += outputCharsOfEvent(neutral);
          out += encoder.encode(restoreDeclaredCall(toolNames, neutral));
        }
        return out || null;
      },
      completed: () => decoder.completed && !errorSent,
      endFrame: () => encoder.end(),
      errorFrame: (message, code) => errorSent ? "" : encoder.error(message, code),
    },
  };
}

/** The client's stream; the bill is settled (or released) once when it ends. */
export function streamAnswer(
  attempt: StreamAttempt,
  input: { inbound: TextInbound; channel: Channel; bill: TextBill },
): { stream: ReadableStream<Uint8Array>; contentType: string } {
  const { inbound, channel, bill } = input;
  const own = textInterfaceOf(inbound.format).ownStreamRelay;
  const relay = attempt.format !== inbound.format
    ? convertingRelay(attempt, inbound)
    : own
    ? ownRelay(attempt, inbound, own)
    : passThroughRelay(attempt, inbound);
  // Every relay reads the upstream's events cleaned of the channel's keys.
  const redactor = new StreamRedactor(channel.keys);
  const stream = pumpSse(attempt, {
    ...relay.handlers,
    frame: (event) => relay.handlers.frame(redactor.event(event)),
    errorFrame: (message, code) => relay.handlers.errorFrame(redactor.message(message), code),
    finish(outcome) {
      // A broken stream is free, whatever usage the upstream sent before it broke; one the
      // upstream let go silent is billed for what came.
      if (outcome === "upstream_error") {
        bill.releaseInterrupted(channel, relay.outputChars());
      } else {
        bill.settle(channel, { outcome, usage: relay.usage(), outputChars: relay.outputChars() });
      }
    },
  });
  // Only generate-content streams may be framed as one JSON array.
  const contentType = inbound.framing === "json-array"
    ? "application/json"
    : "text/event-stream; charset=utf-8";
  return { stream, contentType };
}
