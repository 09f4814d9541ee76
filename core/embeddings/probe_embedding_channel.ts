/**
 * The test of an embedding model's channel (any type with embeddings): one real embedding of one
 * short text, the cheapest call that proves the key may embed with this model. The upstream bills
 * the operator for a few tokens; the gateway bills nothing.
 */

import type { Channel } from "../channels/channel_schema.ts";
import type { Gateway } from "../gateway.ts";
import { type ChannelProbeResult, runProbe } from "../upstream/channel_probe.ts";
import { attemptEmbeddings } from "./embedding_service.ts";

/** Tests `channel`'s embedding model `model` with one embedding of a short text. */
export function probeEmbeddingChannel(
  gateway: Gateway,
  input: { channel: Channel; model: string; signal: AbortSignal },
): Promise<ChannelProbeResult> {
  const { channel, model, signal } = input;
  return runProbe(
    channel,
    { model, call: "one embedding of a short text (billed upstream, not by the gateway)" },
    async (channel, trace) => {
      await attemptEmbeddings(channel, { model, inputs: ["ping"] }, {
        signal,
        trace,
        base64: false,
        maxBytes: gateway.options.upstreamMaxBytes.media,
      });
    },
    { metrics: gateway.metrics, requestLog: gateway.requestLog, signal },
  );
}
