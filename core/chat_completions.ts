/**
 * OpenAI chat completions on `openai` channels: hold, call with failover, relay, settle.
 * Billing policy (README "Billing"): a completed request pays the upstream's usage (an estimate
 * when the upstream sends none); a client that disconnects pays for what the upstream produced
 * up to then; an upstream failure, before or during the answer, costs nothing.
 */

import { EventSourceParserStream } from "eventsource-parser/stream";
import type { EventSourceMessage } from "eventsource-parser";
import { DEFAULT_MAX_OUTPUT_TOKENS, type TextPrice } from "./catalog.ts";
import type { Channel } from "./channel_schema.ts";
import type { Gateway } from "./gateway.ts";
import type { KeyRecord } from "./key_schema.ts";
import { resolveModel } from "./model_access.ts";
import type { RequestContext } from "./request_context.ts";
import { pickUpstreamKey, upstreamModelName } from "./routing.ts";
import { pumpSse, type StreamOutcome } from "./sse_pump.ts";
import { RequestBill } from "./request_bill.ts";
import { textCost } from "./pricing.ts";
import { UpstreamAttemptError, UpstreamCall, withFailover } from "./upstream.ts";
import type { TokenUsage, UsageSource } from "./usage.ts";
import { buildOpenAIChatRequest, readOpenAIError } from "./providers/openai_chat.ts";
import type { ChatRequest } from "./formats/openai_chat/request_schema.ts";
import {
  estimateOutputTokens,
  estimatePromptTokens,
  promptTokensUpperBound,
} from "./formats/openai_chat/estimate_tokens.ts";
import {
  convertOpenAIChatUsage,
  type OpenAIChatUsage,
} from "./formats/openai_chat/convert_usage.ts";
import { OpenAIChatStreamRelay } from "./formats/openai_chat/stream_relay.ts";

export type ChatAnswer =
  | { kind: "json"; body: string; headers: Record<string, string> }
  | { kind: "stream"; stream: ReadableStream<Uint8Array>; headers: Record<string, string> };

/** The parts of an upstream chat completion the gateway reads; the rest passes through. */
interface ChatCompletion extends Record<string, unknown> {
  model?: string;
  usage?: OpenAIChatUsage | null;
  choices?: Array<{ message?: unknown }>;
}

interface StreamStart {
  call: UpstreamCall;
  first: EventSourceMessage;
  events: ReadableStreamDefaultReader<EventSourceMessage>;
}

/** Serves one chat-completions request for `key`. */
export async function completeChat(
  gateway: Gateway,
  context: RequestContext,
  key: KeyRecord,
  request: ChatRequest,
  clientSignal: AbortSignal,
): Promise<ChatAnswer> {
  const { model, order } = resolveModel(gateway, key, request.model, "text", ["openai"]);
  const price = model.price as TextPrice;
  const stream = request.stream === true;
  context.stream = stream;

  const maxOutput = request.max_completion_tokens ?? request.max_tokens ??
    model.max_output_tokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
  const bill = new RequestBill(gateway, key, context.id);
  await bill.hold(textCost(price, {
    input_tokens: promptTokensUpperBound(request),
    cached_input_tokens: 0,
    output_tokens: maxOutput * (request.n ?? 1),
  }));

  const clientWantsUsage = request.stream_options?.include_usage === true;
  const bodyFor = (channel: Channel) =>
    JSON.stringify({
      ...request,
      model: upstreamModelName(channel, request.model),
      ...(stream ? { stream_options: { ...request.stream_options, include_usage: true } } : {}),
    });

  const estimate = (outputChars: number): TokenUsage => ({
    input_tokens: estimatePromptTokens(request),
    cached_input_tokens: 0,
    output_tokens: estimateOutputTokens(outputChars),
  });

  const finishBilled = (
    channel: Channel,
    status: number,
    outcome: StreamOutcome,
    usage: TokenUsage,
    source: UsageSource,
  ) =>
    gateway.track((async () => {
      const cost = await bill.settle(textCost(price, usage));
      context.finish(gateway, {
        status,
        channelId: channel.id,
        usage,
        usageSource: source,
        cost,
        outcome,
      });
    })());

  const timeoutOf = (channel: Channel) => channel.timeout_ms;
  let chosen: { result: ChatCompletion | StreamStart; channel: Channel };
  try {
    chosen = await withFailover(
      order,
      1 + gateway.options.maxRetries,
      clientSignal,
      async (channel): Promise<ChatCompletion | StreamStart> => {
        context.attempts++;
        const call = new UpstreamCall(timeoutOf(channel), clientSignal);
        const { url, init } = buildOpenAIChatRequest(
          channel,
          pickUpstreamKey(channel),
          bodyFor(channel),
        );
        try {
          const response = await fetch(url, { ...init, signal: call.signal });
          if (!response.ok) throw await readOpenAIError(response);
          if (!stream) {
            const text = await response.text();
            call.done();
            try {
              return JSON.parse(text) as ChatCompletion;
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
          return { call, first: first.value, events };
        } catch (error) {
          call.abort();
          if (error instanceof UpstreamAttemptError) throw error;
          const reason = call.timedOut
            ? `timed out after ${timeoutOf(channel)} ms`
            : error instanceof Error
            ? error.message
            : String(error);
          throw new UpstreamAttemptError(reason, { retryable: !call.clientAborted });
        }
      },
      (record) =>
        gateway.metrics.add("gateway_upstream_attempts_total", {
          channel: record.channel_id,
          outcome: record.outcome,
        }),
    );
  } catch (error) {
    await bill.release("upstream call failed");
    throw error;
  }

  try {
    await bill.confirmed();
  } catch (error) {
    if (stream) {
      const started = chosen.result as StreamStart;
      started.call.abort();
      started.events.cancel().catch(() => {});
    }
    throw error;
  }

  const { channel } = chosen;
  context.logsLater = true;
  const headers = { "x-gateway-channel": channel.id };

  if (!stream) {
    const answer = chosen.result as ChatCompletion;
    answer.model = request.model;
    const usage = answer.usage ? convertOpenAIChatUsage(answer.usage) : undefined;
    const outputChars = JSON.stringify(
      answer.choices?.map((choice) => choice.message) ?? [],
    ).length;
    finishBilled(
      channel,
      200,
      "completed",
      usage ?? estimate(outputChars),
      usage ? "upstream" : "estimate",
    );
    return { kind: "json", body: JSON.stringify(answer), headers };
  }

  const { call, first, events } = chosen.result as StreamStart;
  const relay = new OpenAIChatStreamRelay({
    clientWantsUsage,
    upstreamModel: upstreamModelName(channel, request.model),
    publicModel: request.model,
  });
  const body = pumpSse(first, events, call, {
    frame(event) {
      const data = relay.relay(event.data);
      return data === null ? null : `data: ${data}\n\n`;
    },
    completed: () => relay.completed,
    errorFrame: (message) =>
      relay.upstreamError !== undefined ? "" : `data: ${
        JSON.stringify({
          error: {
            message,
            type: "upstream_error",
            param: null,
            code: "upstream_stream_interrupted",
          },
        })
      }\n\n`,
    finish(outcome) {
      if (outcome === "upstream_error" && !relay.usage) {
        gateway.track((async () => {
          await bill.release("upstream failed mid-stream");
          context.finish(gateway, {
            status: 200,
            channelId: channel.id,
            outcome,
            errorCode: "upstream_stream_interrupted",
            usage: estimate(relay.outputChars),
            usageSource: "estimate",
          });
        })());
        return;
      }
      const usage = relay.usage ?? estimate(relay.outputChars);
      finishBilled(channel, 200, outcome, usage, relay.usage ? "upstream" : "estimate");
    },
  });
  return { kind: "stream", stream: body, headers };
}
