/**
 * Serves a text request of any inbound format on any text channel: hold, call with failover,
 * answer (passed through when the channel speaks the inbound format, converted through the
 * neutral representation otherwise), settle.
 * Billing policy (README "Billing"): a completed request pays the upstream's usage (an estimate
 * when the upstream sends none); a client that disconnects pays for what the upstream produced
 * up to then; an upstream failure, before or during the answer, costs nothing.
 */

import { EventSourceParserStream } from "eventsource-parser/stream";
import type { EventSourceMessage } from "eventsource-parser";
import { DEFAULT_MAX_OUTPUT_TOKENS, type TextPrice } from "../catalog.ts";
import type { Channel, ChannelType } from "../channel_schema.ts";
import { GatewayError } from "../errors.ts";
import type { Gateway } from "../gateway.ts";
import type { KeyRecord } from "../key_schema.ts";
import { resolveModel } from "../model_access.ts";
import type { RequestContext } from "../request_context.ts";
import { pickUpstreamKey, upstreamModelName } from "../routing.ts";
import { pumpSse, type SsePumpHandlers, type StreamOutcome } from "../sse_pump.ts";
import { RequestBill } from "../request_bill.ts";
import { textCost } from "../pricing.ts";
import { networkFailure, UpstreamAttemptError, UpstreamCall, withFailover } from "../upstream.ts";
import type { TokenUsage, UsageSource } from "../usage.ts";
import { estimateOutputTokens } from "../formats/openai_chat/estimate_tokens.ts";
import { OpenAIChatStreamRelay } from "../formats/openai_chat/stream_relay.ts";
import { CODECS, FORMAT_OF_CHANNEL, INTERFACE_OF_FORMAT } from "../formats/codecs.ts";
import type { NeutralPart, TextFormat } from "../formats/neutral.ts";
import { readTextUpstreamError, textUpstreamRequest } from "../providers/text_upstreams.ts";
import type { TextInbound } from "./inbound.ts";
import { passThroughBody, PassThroughStream } from "./pass_through.ts";

export const TEXT_CHANNEL_TYPES: readonly ChannelType[] = [
  "openai",
  "openai-responses",
  "anthropic",
  "gemini",
];

export type TextAnswer =
  | { kind: "json"; body: string; headers: Record<string, string> }
  | {
    kind: "stream";
    stream: ReadableStream<Uint8Array>;
    headers: Record<string, string>;
    contentType: string;
  };

// deno-lint-ignore no-explicit-any
type Json = any;

interface Attempt {
  format: TextFormat;
  upstreamModel: string;
  ignored: string[];
}

interface JsonResult extends Attempt {
  answer: Json;
}

interface StreamResult extends Attempt {
  call: UpstreamCall;
  first: EventSourceMessage;
  events: ReadableStreamDefaultReader<EventSourceMessage>;
}

const formatOf = (channel: Channel) => FORMAT_OF_CHANNEL[channel.type]!;

/**
 * The channels that can serve `inbound`: all of them, unless it uses a field only its own
 * format has; then only those, or a 400 that names the interface to use instead.
 */
function servableOrder(order: Channel[], inbound: TextInbound): Channel[] {
  if (!inbound.exclusive) return order;
  const own = order.filter((channel) => formatOf(channel) === inbound.format);
  if (own.length) return own;
  const formats = [...new Set(order.map(formatOf))];
  throw new GatewayError(
    "unsupported_on_channel",
    400,
    `'${inbound.exclusive}' needs an upstream that speaks this interface, and '${inbound.model}' ` +
      `is served here by upstreams that speak another. Drop '${inbound.exclusive}', or send the ` +
      `request to ${formats.map((format) => INTERFACE_OF_FORMAT[format]).join(" or ")} instead`,
    { param: inbound.exclusive },
  );
}

/** The upstream body for `channel`, and the inbound fields it could not carry. */
function upstreamBody(
  inbound: TextInbound,
  format: TextFormat,
  upstreamModel: string,
  maxOutput: number,
): { body: string; ignored: string[] } {
  if (format === inbound.format) {
    return { body: passThroughBody(inbound, upstreamModel), ignored: [] };
  }
  const neutral = inbound.neutral();
  const { body, ignored } = CODECS[format].encodeRequest(neutral, upstreamModel, maxOutput);
  return {
    body: JSON.stringify(body),
    ignored: [...ignored.map((name) => neutral.fieldOf[name] ?? name), ...neutral.unmapped],
  };
}

function partChars(parts: NeutralPart[]): number {
  let chars = 0;
  for (const part of parts) {
    if (part.type === "text" || part.type === "reasoning") chars += part.text.length;
    else if (part.type === "tool_call") chars += part.name.length + part.arguments.length;
  }
  return chars;
}

/** Serves one text request for `key`. */
export async function serveText(
  gateway: Gateway,
  context: RequestContext,
  key: KeyRecord,
  inbound: TextInbound,
  clientSignal: AbortSignal,
): Promise<TextAnswer> {
  const resolved = resolveModel(gateway, key, inbound.model, "text", TEXT_CHANNEL_TYPES);
  const order = servableOrder(resolved.order, inbound);
  const price = resolved.model.price as TextPrice;
  const stream = inbound.stream;
  context.stream = stream;

  const maxOutput = inbound.maxOutputTokens ?? resolved.model.max_output_tokens ??
    DEFAULT_MAX_OUTPUT_TOKENS;
  const bill = new RequestBill(gateway, key, context.id);
  const copies = inbound.format === "openai-chat" ? inbound.body.n ?? 1 : 1;
  await bill.hold(textCost(price, {
    input_tokens: inbound.inputUpperBound(),
    cached_input_tokens: 0,
    output_tokens: maxOutput * copies,
  }));

  const estimate = (outputChars: number): TokenUsage => ({
    input_tokens: inbound.inputEstimate(),
    cached_input_tokens: 0,
    output_tokens: estimateOutputTokens(outputChars),
  });

  const finishBilled = (
    channel: Channel,
    outcome: StreamOutcome,
    usage: TokenUsage,
    source: UsageSource,
  ) =>
    gateway.track((async () => {
      const cost = await bill.settle(textCost(price, usage));
      context.finish(gateway, {
        status: 200,
        channelId: channel.id,
        usage,
        usageSource: source,
        cost,
        outcome,
      });
    })());

  let chosen: { result: JsonResult | StreamResult; channel: Channel };
  try {
    chosen = await withFailover(
      order,
      async (channel, trace): Promise<JsonResult | StreamResult> => {
        const format = formatOf(channel);
        const upstreamModel = upstreamModelName(channel, inbound.model);
        const { body, ignored } = upstreamBody(inbound, format, upstreamModel, maxOutput);
        const call = new UpstreamCall(channel.timeout_ms, clientSignal);
        const { url, init } = textUpstreamRequest(
          channel,
          pickUpstreamKey(channel),
          upstreamModel,
          stream,
          body,
        );
        trace.url = url;
        const attempt: Attempt = { format, upstreamModel, ignored };
        try {
          const response = await fetch(url, { ...init, signal: call.signal });
          if (!response.ok) throw await readTextUpstreamError(channel, response);
          if (!stream) {
            const text = await response.text();
            call.done();
            try {
              return { ...attempt, answer: JSON.parse(text) };
            } catch {
              throw new UpstreamAttemptError("The upstream answered with invalid JSON", {
                retryable: true,
              });
            }
          }
          if (!response.body) throw new UpstreamAttemptError("empty stream", { retryable: true });
          const events = response.body
            .pipeThrough(new TextDecoderStream())
            .pipeThrough(new EventSourceParserStream())
            .getReader();
          const first = await events.read();
          if (first.done) {
            throw new UpstreamAttemptError("The upstream stream ended before any event", {
              retryable: true,
            });
          }
          call.touch();
          return { ...attempt, call, first: first.value, events };
        } catch (error) {
          call.abort();
          throw networkFailure(error, call);
        }
      },
      {
        maxAttempts: 1 + gateway.options.maxRetries,
        signal: clientSignal,
        metrics: gateway.metrics,
        log: context.upstreamAttempts,
      },
    );
  } catch (error) {
    await bill.release("upstream call failed");
    throw error;
  }

  try {
    await bill.confirmed();
  } catch (error) {
    if (stream) {
      const started = chosen.result as StreamResult;
      started.call.abort();
      started.events.cancel().catch(() => {});
    }
    throw error;
  }

  const { channel, result } = chosen;
  context.logsLater = true;
  const headers: Record<string, string> = { "x-gateway-channel": channel.id };
  if (result.ignored.length) headers["x-gateway-ignored-fields"] = result.ignored.join(",");
  const same = result.format === inbound.format;

  if (!stream) {
    const { answer } = result as JsonResult;
    let body: string;
    let usage: TokenUsage | undefined;
    let outputChars: number;
    if (same) {
      usage = CODECS[result.format].usageOf(answer);
      CODECS[result.format].renameModel(answer, inbound.model);
      body = JSON.stringify(answer);
      outputChars = body.length;
    } else {
      const neutral = CODECS[result.format].decodeResponse(answer);
      usage = neutral.usage;
      outputChars = partChars(neutral.parts);
      body = JSON.stringify(CODECS[inbound.format].encodeResponse(neutral, inbound.model));
    }
    finishBilled(
      channel,
      "completed",
      usage ?? estimate(outputChars),
      usage ? "upstream" : "estimate",
    );
    return { kind: "json", body, headers };
  }

  const { call, first, events } = result as StreamResult;
  let usageNow: () => TokenUsage | undefined;
  let outputChars: () => number;
  let handlers: Omit<SsePumpHandlers, "finish">;
  if (same && inbound.format === "openai-chat") {
    const relay = new OpenAIChatStreamRelay({
      clientWantsUsage: inbound.includeUsage,
      upstreamModel: result.upstreamModel,
      publicModel: inbound.model,
    });
    usageNow = () => relay.usage;
    outputChars = () => relay.outputChars;
    handlers = {
      frame(event) {
        const data = relay.relay(event.data);
        return data === null ? null : `data: ${data}\n\n`;
      },
      completed: () => relay.completed,
      errorFrame: (message) =>
        relay.upstreamError !== undefined
          ? ""
          : CODECS["openai-chat"].streamEncoder("", inbound).error(
            message,
            "upstream_stream_interrupted",
          ),
    };
  } else if (same) {
    const relay = new PassThroughStream(
      inbound.format,
      inbound.framing,
      result.upstreamModel,
      inbound.model,
    );
    usageNow = () => relay.decoder.usage;
    outputChars = () => relay.outputChars;
    handlers = {
      frame: (event) => relay.frame(event),
      completed: () => relay.decoder.completed && relay.decoder.error === undefined,
      endFrame: () => relay.end(),
      errorFrame: (message) => relay.error(message, "upstream_stream_interrupted"),
    };
  } else {
    const decoder = CODECS[result.format].streamDecoder();
    const encoder = CODECS[inbound.format].streamEncoder(inbound.model, inbound);
    let chars = 0;
    let errorSent = false;
    usageNow = () => decoder.usage;
    outputChars = () => chars;
    handlers = {
      frame(event) {
        let out = "";
        for (const neutral of decoder.decode(event.event, event.data)) {
          if (neutral.type === "error") {
            if (!errorSent) out += encoder.error(neutral.message, neutral.code ?? "upstream_error");
            errorSent = true;
            continue;
          }
          if (errorSent) continue;
          if (neutral.type === "text" || neutral.type === "reasoning") chars += neutral.text.length;
          else if (neutral.type === "tool_call") chars += neutral.arguments.length;
          out += encoder.encode(neutral);
        }
        return out || null;
      },
      completed: () => decoder.completed && !errorSent,
      endFrame: () => encoder.end(),
      errorFrame: (message) =>
        errorSent ? "" : encoder.error(message, "upstream_stream_interrupted"),
    };
  }

  const body = pumpSse(first, events, call, {
    ...handlers,
    finish(outcome) {
      const usage = usageNow();
      if (outcome === "upstream_error" && !usage) {
        gateway.track((async () => {
          await bill.release("upstream failed mid-stream");
          context.finish(gateway, {
            status: 200,
            channelId: channel.id,
            outcome,
            errorCode: "upstream_stream_interrupted",
            usage: estimate(outputChars()),
            usageSource: "estimate",
          });
        })());
        return;
      }
      finishBilled(
        channel,
        outcome,
        usage ?? estimate(outputChars()),
        usage ? "upstream" : "estimate",
      );
    },
  });
  const contentType = inbound.format === "gemini" && inbound.framing === "json-array"
    ? "application/json"
    : "text/event-stream; charset=utf-8";
  return { kind: "stream", stream: body, headers, contentType };
}
