/**
 * Text to speech (`POST /v1/audio/speech`): the price of the input's characters is held before
 * the upstream call, the audio is relayed as it arrives, and the bill follows how the relay
 * ended — the full price once the client was sent any byte and the upstream finished (or the
 * client left on its own); nothing when the upstream failed, broke off mid-body, or the client
 * left before the first byte (docs/audio.md#billing-speech).
 */

import type { Channel } from "../channels/channel_schema.ts";
import { RequestBill } from "../billing/request_bill.ts";
import { audioCharactersReceipt } from "../billing/receipt.ts";
import { settleAndLog } from "../billing/settle_and_log.ts";
import { isSpeechPrice, speechCharacters } from "../billing/speech_price.ts";
import { resolveModel } from "../channels/model_access.ts";
import { GatewayError } from "../errors.ts";
import type { RequestScope } from "../scope.ts";
import { withFailover } from "../upstream/failover.ts";
import { headerList } from "../util/header_value.ts";
import { type OpenedSpeech, openSpeech } from "./speech_attempt.ts";
import { pumpSpeech, type SpeechOutcome } from "./speech_pump.ts";
import { SPEECH_CONTENT_TYPES, type SpeechRequest } from "../jobs/speech_job.ts";

/** The 402's advice besides adding credit, for speech requests. */
export const SPEECH_REMEDY = "send a shorter input";

/**
 * Whether a relay that ended `outcome` after `sentBytes` is billed at the full price: when it
 * completed, or when the client left after audio reached it. An upstream that broke off or went
 * silent, or the gateway's own stop cutting it, leaves the client a broken file: not billed.
 */
export function speechIsBilled(end: { outcome: SpeechOutcome; sentBytes: number }): boolean {
  if (end.outcome === "completed") return true;
  return end.outcome === "client_disconnect" && end.sentBytes > 0;
}

function notASpeechModel(model: string): GatewayError {
  return new GatewayError(
    "wrong_model_kind",
    400,
    `The model '${model}' is not a speech model (its price is not per_character); ` +
      "use it on /v1/audio/transcriptions",
    { param: "model" },
  );
}

/**
 * Serves `job`: the audio answer, streamed. `ignoredFields` are the request's fields no speech
 * request takes; the channel's own are added to them.
 */
export async function serveSpeech(
  scope: RequestScope,
  input: { job: SpeechRequest; ignoredFields: string[] },
): Promise<Response> {
  const { gateway, context, key, signal } = scope;
  const { job } = input;
  context.model = job.model;
  const { model, order } = resolveModel(gateway.registry, { key, model: job.model, kind: "audio" });
  if (!isSpeechPrice(model.price)) throw notASpeechModel(job.model);
  const pricing = audioCharactersReceipt(
    model.price,
    speechCharacters(job.input),
    gateway.priceTierOf(key),
  );
  const bill = new RequestBill(gateway.ledger, {
    key,
    ref: context.id,
    remedy: SPEECH_REMEDY,
    aggregate: false,
  });
  await bill.hold(pricing.amount);
  let opened: { result: OpenedSpeech; channel: Channel } | undefined;
  try {
    opened = await withFailover(
      order,
      (channel, trace) => openSpeech(channel, job, { signal, trace }),
      gateway.failover(signal, context.upstreamAttempts),
    );
    await bill.confirmed();
  } catch (error) {
    // A hold refused while the upstream was already answering: its audio is not read.
    opened?.result.call.abort();
    await opened?.result.reader.cancel().catch(() => {});
    await bill.release("speech request failed");
    throw error;
  }
  const { result: upstream, channel } = opened;
  const ignored = [...input.ignoredFields, ...upstream.ignored];
  context.logsLater = true;
  context.stream = true;
  const body = pumpSpeech(upstream, (end) => {
    const billed = speechIsBilled(end);
    const broke = end.outcome === "upstream_error" || end.outcome === "upstream_idle_timeout";
    const log = context.finishLater({
      status: 200,
      channelId: channel.id,
      outcome: end.outcome,
      errorCode: broke
        ? end.outcome === "upstream_error" ? "upstream_stream_interrupted" : "upstream_timeout"
        : null,
    });
    gateway.track((async () => {
      if (!billed) {
        await bill.release(
          end.outcome === "gateway_shutdown"
            ? "speech cut at the gateway's shutdown deadline"
            : `speech ${end.outcome.replaceAll("_", " ")} before it was delivered`,
        );
        log();
        return;
      }
      await settleAndLog(bill, { pricing, log });
    })());
  }, signal);
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": SPEECH_CONTENT_TYPES[job.response_format],
      "x-gateway-channel": channel.id,
      "x-gateway-cost-units": String(pricing.amount),
      "x-gateway-billed-characters": String(pricing.units.input_characters),
      ...(ignored.length ? { "x-gateway-ignored-fields": headerList(ignored) } : {}),
    },
  });
}
