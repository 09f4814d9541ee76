/**
 * Serving a transcription or translation: the model's price unit decides the bill (per second of
 * input audio, read before the call; per token, from the upstream's usage), the bound is held
 * before the upstream call with failover across the model's `openai` channels, and the bill is
 * settled once the answer is in (or given back when no channel answered). A whole answer is
 * passed on as the upstream wrote it (JSON, or text/plain for text, srt and vtt); a stream's SSE
 * events (`transcript.text.delta`, `transcript.text.done`) are passed on as they arrive and the
 * bill settled when it ends.
 */

import { resolveModel } from "../channels/model_access.ts";
import type { Channel } from "../channels/channel_schema.ts";
import { invalidRequest } from "../errors.ts";
import { RequestBill } from "../billing/request_bill.ts";
import { type AudioPrice, audioPriceUnit, billedMsOf } from "../billing/audio_price.ts";
import { settleAndLog } from "../billing/settle_and_log.ts";
import { providerOf, upstreamTarget } from "../providers/provider_table.ts";
import type { RequestScope } from "../scope.ts";
import { openUpstream, readAnswer } from "../upstream/call.ts";
import { UpstreamAttemptError, type UpstreamCall } from "../upstream/attempt.ts";
import { withFailover } from "../upstream/failover.ts";
import { sseEvents } from "../upstream/sse_events.ts";
import { headerList } from "../util/header_value.ts";
import { readAudioSeconds } from "./audio_seconds.ts";
import { readJsonTranscript, readStreamEvent, type ReportedUsage } from "./transcription_answer.ts";
import { isPlainTextFormat, type TranscriptionJob } from "../jobs/transcription_job.ts";
import { type CuttableStream, streamEnded, streamOpened } from "../upstream/open_streams.ts";
import {
  tokenBounds,
  transcriptionBill,
  transcriptionHold,
  type TranscriptionInput,
} from "./transcription_pricing.ts";

/** The 402's advice besides adding credit. */
const AUDIO_REMEDY = "send a shorter audio file";

/** An answer ready to send: a whole body, or a stream of SSE bytes. */
export interface TranscriptionAnswer {
  headers: Record<string, string>;
  body: string | ReadableStream<Uint8Array>;
}

type Opened =
  | { kind: "whole"; text: string; contentType: string }
  | { kind: "stream"; response: Response; call: UpstreamCall };

/** One attempt on `channel`: the whole answer read, or a stream opened. */
async function attempt(
  scope: RequestScope,
  channel: Channel,
  job: TranscriptionJob,
  trace: Parameters<typeof upstreamTarget>[2],
): Promise<Opened> {
  const provider = providerOf(channel);
  const request = provider.transcription!.request(upstreamTarget(channel, job.model, trace), job);
  const { response, call } = await openUpstream(channel, request, {
    signal: scope.signal,
    errors: provider.errors,
    trace,
  });
  const contentType = response.headers.get("content-type") ?? "";
  if (job.stream && /^text\/event-stream/i.test(contentType)) {
    return { kind: "stream", response, call };
  }
  const text = await readAnswer(response, {
    call,
    maxBytes: scope.gateway.options.upstreamMaxBytes.media,
  });
  // A stream the upstream answered whole (an upstream that ignores `stream`) is passed on whole.
  if (!isPlainTextFormat(job.format)) readJsonTranscript(text);
  return {
    kind: "whole",
    text,
    contentType: isPlainTextFormat(job.format) ? "text/plain; charset=utf-8" : "application/json",
  };
}

/** Serves `job` for the scope's key; `ignoredFields` are named in the answer's headers. */
export async function serveTranscription(
  scope: RequestScope,
  { job, ignoredFields }: { job: TranscriptionJob; ignoredFields: string[] },
): Promise<TranscriptionAnswer> {
  const { gateway, context, key } = scope;
  const { model, order } = resolveModel(gateway.registry, { key, model: job.model, kind: "audio" });
  const price = model.price as AudioPrice;
  const unit = audioPriceUnit(price);
  if (unit === "per_character") {
    throw invalidRequest(
      `The model '${job.model}' is a speech model (priced per character); use POST /v1/audio/speech`,
      "model",
      "wrong_model_kind",
    );
  }
  const read = await readAudioSeconds(gateway, job.file, { required: unit === "per_second" });
  if (read) context.durationReader = read.reader;
  const prompt = job.fields.find(([name]) => name === "prompt")?.[1] ?? "";
  const input: TranscriptionInput = {
    seconds: read?.seconds,
    bytes: job.file.bytes.length,
    prompt,
    maxOutputTokens: model.max_output_tokens,
  };
  const tier = gateway.priceTierOf(key);
  const bill = new RequestBill(gateway.ledger, { key, ref: context.id, remedy: AUDIO_REMEDY });
  const bounds = tokenBounds(input);
  // A per-token request counts its token bound against the key's tokens per minute, as text does.
  await bill.hold(transcriptionHold(price, input, tier), {
    tokens: unit === "per_token" ? bounds.input_tokens + bounds.output_tokens : undefined,
  });
  let opened: Opened;
  let channel: Channel;
  try {
    ({ result: opened, channel } = await withFailover(
      order,
      (channel, trace) => attempt(scope, channel, job, trace),
      gateway.failover(scope.signal, context.upstreamAttempts),
    ));
    await bill.confirmed();
  } catch (error) {
    await bill.release("audio request failed");
    throw error;
  }
  const headers: Record<string, string> = {
    "x-gateway-channel": channel.id,
    "x-gateway-billing": unit,
    ...(read ? { "x-gateway-duration-reader": read.reader } : {}),
    ...(unit === "per_second"
      ? { "x-gateway-billed-seconds": String(billedMsOf(read!.seconds) / 1000) }
      : {}),
    ...(ignoredFields.length ? { "x-gateway-ignored-fields": headerList(ignoredFields) } : {}),
  };
  context.ignoredFields = ignoredFields;
  context.logsLater = true;
  const settle = (answer: { reported?: ReportedUsage; transcriptChars: number }) => {
    const billed = transcriptionBill(price, input, answer, tier);
    const log = context.finishLater({
      status: 200,
      channelId: channel.id,
      usage: billed.usage,
      usageSource: billed.usageSource,
      billedSeconds: billed.billedSeconds,
    });
    gateway.track(settleAndLog(bill, {
      pricing: billed.pricing,
      log,
      tokens: billed.usage ? billed.usage.input_tokens + billed.usage.output_tokens : undefined,
    }));
    return billed.pricing.amount;
  };
  if (opened.kind === "whole") {
    const transcript = isPlainTextFormat(job.format)
      ? { text: opened.text.replace(/\n$/, "") }
      : readJsonTranscript(opened.text);
    const cost = settle({
      reported: transcript.usage,
      transcriptChars: isPlainTextFormat(job.format) ? opened.text.length : transcript.text.length,
    });
    const billedHeaders: Record<string, string> = {
      ...headers,
      "x-gateway-cost-units": String(cost),
    };
    if (job.stream && (job.format === "json" || job.format === "text")) {
      // An upstream that ignores `stream` (whisper-1 does, as OpenAI documents): its whole answer
      // is sent as the stream the client asked for, one delta and the done event.
      context.stream = true;
      return {
        headers: {
          ...billedHeaders,
          "content-type": "text/event-stream",
          "cache-control": "no-cache",
        },
        body: wholeAsEvents(transcript),
      };
    }
    if (job.stream) {
      // srt, vtt and verbose_json have no stream events: the whole answer, `stream` named.
      const named = [...ignoredFields, "stream"];
      context.ignoredFields = named;
      billedHeaders["x-gateway-ignored-fields"] = headerList(named);
    }
    return {
      headers: { ...billedHeaders, "content-type": opened.contentType },
      body: opened.text,
    };
  }
  context.stream = true;
  return {
    headers: { ...headers, "content-type": "text/event-stream", "cache-control": "no-cache" },
    body: passStream(opened, scope, settle),
  };
}

/** A whole transcript as a stream's events: `transcript.text.delta`, then `.done`. */
function wholeAsEvents(transcript: { text: string; usage?: ReportedUsage }): string {
  const events = [
    { type: "transcript.text.delta", delta: transcript.text },
    {
      type: "transcript.text.done",
      text: transcript.text,
      ...(transcript.usage ? { usage: { type: "tokens", ...transcript.usage } } : {}),
    },
  ];
  return events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join("");
}

/**
 * The upstream's SSE events passed on one by one; the bill settles when the stream ends: with
 * the `transcript.text.done` event's usage, else (a stream cut short, a client gone) by the
 * estimate of the transcript delivered; a per-second model bills its seconds either way.
 */
function passStream(
  opened: { response: Response; call: UpstreamCall },
  scope: RequestScope,
  settle: (answer: { reported?: ReportedUsage; transcriptChars: number }) => number,
): ReadableStream<Uint8Array> {
  const events = sseEvents(opened.response.body!);
  const encoder = new TextEncoder();
  let chars = 0;
  let reported: ReportedUsage | undefined;
  let settled = false;
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  // A graceful stop's deadline ends it as a text stream ends: billed for what it delivered.
  const relay: CuttableStream = {
    cut() {
      if (settled) return;
      opened.call.abort();
      events.cancel().catch(() => {});
      finish();
      try {
        controller?.close();
      } catch {
        // closed meanwhile
      }
    },
  };
  const finish = () => {
    if (settled) return;
    settled = true;
    streamEnded(relay);
    settle({ reported, transcriptChars: chars });
  };
  streamOpened(relay);
  return new ReadableStream<Uint8Array>({
    start(given) {
      controller = given;
    },
    async pull(controller) {
      try {
        const { done, value } = await events.read();
        // Cut meanwhile: the bill is settled and the body closed.
        if (settled) return;
        if (done) {
          opened.call.done();
          finish();
          controller.close();
          return;
        }
        // Each event restarts the channel's timeout: only silence that long ends the stream.
        opened.call.touch();
        const read = readStreamEvent(value.data);
        if (read.delta) chars += read.delta.length;
        if (read.done) {
          chars = Math.max(chars, read.done.text.length);
          reported = read.done.usage;
        }
        const event = value.event ? `event: ${value.event}\n` : "";
        controller.enqueue(encoder.encode(`${event}data: ${value.data}\n\n`));
      } catch (error) {
        if (settled) return;
        opened.call.abort();
        finish();
        const failure = error instanceof UpstreamAttemptError
          ? error.message
          : "the upstream stream broke";
        const payload = {
          type: "error",
          error: {
            message: `The upstream's stream ended early: ${failure}`,
            type: "upstream_error",
            code: "upstream_stream_interrupted",
          },
        };
        controller.enqueue(encoder.encode(`data: ${JSON.stringify(payload)}\n\n`));
        controller.close();
        scope.gateway.options.log?.({
          msg: "audio stream interrupted",
          request_id: scope.context.id,
          reason: failure,
        });
      }
    },
    async cancel() {
      opened.call.abort();
      await events.cancel().catch(() => {});
      finish();
    },
  });
}
