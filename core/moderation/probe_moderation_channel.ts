/**
 * The test of a moderation model on an `openai` channel: one real moderation of one short text,
 * which proves the key, the address and the model, and that the answer has results. OpenAI does
 * not bill moderations; the gateway bills nothing.
 */

import type { Channel } from "../channels/channel_schema.ts";
import type { Gateway } from "../gateway.ts";
import { type ChannelProbeResult, runProbe } from "../upstream/channel_probe.ts";
import { attemptModeration } from "./serve_moderation.ts";

/** Tests `channel`'s moderation model `model` with one text input. */
export function probeModerationChannel(
  gateway: Gateway,
  input: { channel: Channel; model: string; signal: AbortSignal },
): Promise<ChannelProbeResult> {
  const { channel, model, signal } = input;
  return runProbe(
    channel,
    { model, call: "one moderation of one short text" },
    async (channel, trace) => {
      await attemptModeration(gateway, channel, {
        request: { model, input: "A test of the gateway's channel." },
        signal,
        trace,
      });
    },
    { metrics: gateway.metrics, requestLog: gateway.requestLog, signal },
  );
}
