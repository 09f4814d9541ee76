/**
 * A channel test (`POST /admin/channels/{id}/test` and the console's Test): the model is checked
 * against the channel, and its kind picks the call — a text turn, an image, a video upstream's
 * task-free call, a rerank of two documents, a moderation of one text, a short transcription
 * or one embedding (core/text, core/images, core/video, core/rerank, core/moderation, core/audio,
 * core/embeddings). Never billed.
 */

import type { Channel } from "../../core/channels/channel_schema.ts";
import type { Gateway } from "../../core/gateway.ts";
import type { ModelKind } from "../../core/providers/provider.ts";
import { providerOf, servesKind } from "../../core/providers/provider_table.ts";
import { probeImageChannel } from "../../core/images/probe_image_channel.ts";
import { probeTextChannel } from "../../core/text/probe_text_channel.ts";
import { probeVideoChannel } from "../../core/video/probe_video_channel.ts";
import { probeRerankChannel } from "../../core/rerank/probe_rerank_channel.ts";
import { probeModerationChannel } from "../../core/moderation/probe_moderation_channel.ts";
import { probeAudioChannel } from "../../core/audio/probe_audio_channel.ts";
import { probeSpeechChannel } from "../../core/audio/probe_speech_channel.ts";
import { isSpeechPrice } from "../../core/billing/speech_price.ts";
import { probeEmbeddingChannel } from "../../core/embeddings/probe_embedding_channel.ts";
import { type ChannelProbeResult, probeModel } from "../../core/upstream/channel_probe.ts";

export { channelProbeSchema } from "../../core/upstream/channel_probe.ts";
export type { ChannelProbeResult } from "../../core/upstream/channel_probe.ts";

/** The kind of `model` on `channel`: its catalog kind, else the kind the channel type serves first. */
function kindOf(gateway: Gateway, channel: Channel, model: string): ModelKind {
  const kind = gateway.registry.models.find((entry) => entry.id === model)?.kind;
  return kind && servesKind(channel, kind) ? kind : providerOf(channel).kinds[0];
}

const PROBES = {
  text: probeTextChannel,
  image: probeImageChannel,
  video: probeVideoChannel,
  rerank: probeRerankChannel,
  moderation: probeModerationChannel,
  audio: (gateway: Gateway, input: Parameters<typeof probeAudioChannel>[1]) =>
    isSpeechPrice(gateway.registry.model(input.model)?.price)
      ? probeSpeechChannel(gateway, input)
      : probeAudioChannel(gateway, input),
  embedding: probeEmbeddingChannel,
} as const;

/** Tests `channel` with `model` (else its first) by one minimal real call of the model's kind. */
export function testChannel(
  gateway: Gateway,
  input: { channel: Channel; model?: string; signal: AbortSignal },
): Promise<ChannelProbeResult> {
  const model = probeModel(input.channel, input.model);
  const kind = kindOf(gateway, input.channel, model);
  return PROBES[kind](gateway, { channel: input.channel, model, signal: input.signal });
}
