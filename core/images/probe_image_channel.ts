/**
 * The test of an image model's channel (`openai-images`, or an image model on `gemini`): one real
 * generation of the cheapest image the API makes, n=1 at 1024x1024 (quality `low` for the
 * gpt-image models, the only ones that take it; other models keep their default, which they always
 * accept). No cheaper call proves that the key may draw with this model: a model list or a refused
 * request shows the key and the address, not that generation works. The upstream bills the
 * operator for that one image; the gateway bills nothing, and the image is read to check it came
 * back, then dropped (never hosted).
 */

import type { Channel } from "../channels/channel_schema.ts";
import { upstreamModelName } from "../channels/routing.ts";
import type { Gateway } from "../gateway.ts";
import type { ImageJob } from "../jobs/image_job.ts";
import { type ChannelProbeResult, runProbe } from "../upstream/channel_probe.ts";
import { attemptImageJob } from "./image_generation.ts";

const PROBE_SIZE = "1024x1024";

/** The job of a test of `model` on `channel`. */
export function probeImageJob(channel: Channel, model: string): ImageJob {
  const upstreamModel = upstreamModelName(channel, model);
  return {
    action: "generations",
    model,
    prompt: "A small red circle on a white background",
    n: 1,
    size: PROBE_SIZE,
    quality: channel.type === "openai-images" && /^gpt-image/i.test(upstreamModel) ? "low" : "auto",
    images: [],
  };
}

/** Tests `channel`'s image model `model` with one smallest image. */
export function probeImageChannel(
  gateway: Gateway,
  input: { channel: Channel; model: string; signal: AbortSignal },
): Promise<ChannelProbeResult> {
  const { channel, model, signal } = input;
  const job = probeImageJob(channel, model);
  const quality = job.quality === "auto" ? "" : `, quality ${job.quality}`;
  return runProbe(
    channel,
    { model, call: `one ${PROBE_SIZE} image${quality} (billed upstream, not by the gateway)` },
    async (channel, trace) => {
      await attemptImageJob(channel, job, {
        signal,
        trace,
        maxBytes: gateway.options.upstreamMaxBytes.media,
      });
    },
    { metrics: gateway.metrics, requestLog: gateway.requestLog, signal },
  );
}
