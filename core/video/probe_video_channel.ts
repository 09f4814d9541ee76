/**
 * The test of a video model's channel: the provider's probe call, a real call with the channel's
 * key that makes no task (core/providers: Ark lists tasks, another gateway shows the model). A
 * video task is the dearest call there is (seconds of video, billed upstream even when cancelled
 * once running), so the test proves the key, the address and the API without one.
 */

import type { Channel } from "../channels/channel_schema.ts";
import type { Gateway } from "../gateway.ts";
import { providerOf, upstreamTarget } from "../providers/provider_table.ts";
import { callUpstream } from "../upstream/call.ts";
import { type ChannelProbeResult, runProbe } from "../upstream/channel_probe.ts";

/** Tests `channel`'s video model `model` with its provider's probe call. */
export function probeVideoChannel(
  gateway: Gateway,
  input: { channel: Channel; model: string; signal: AbortSignal },
): Promise<ChannelProbeResult> {
  const { channel, model, signal } = input;
  const provider = providerOf(channel);
  const probe = provider.video!.probe;
  return runProbe(
    channel,
    { model, call: probe.call },
    async (channel, trace) => {
      const answer = await callUpstream(channel, probe.request(upstreamTarget(channel, model)), {
        signal,
        trace,
        errors: provider.errors,
        maxBytes: 1024 * 1024,
      });
      probe.read(answer);
    },
    { metrics: gateway.metrics, requestLog: gateway.requestLog, signal },
  );
}
