/**
 * Whether a video request fits the upstreams that would run it: each channel's provider may
 * refuse a reference, a duration or a ratio its upstream cannot take. A request that every
 * eligible channel refuses is a 400 at submission, naming the field, before any charge; the
 * worker submits a task only to channels that take it.
 */

import type { Channel } from "../channels/channel_schema.ts";
import { eligibleChannels, upstreamModelName } from "../channels/routing.ts";
import { invalidRequest } from "../errors.ts";
import type { VideoAsk, VideoRefusal } from "../jobs/video_job.ts";
import { providerOf, servesKind } from "../providers/provider_table.ts";
import { DEFAULT_DURATION } from "./video_models.ts";

/** What `channel`'s upstream cannot make of `ask` for public model `model`, if anything. */
export function channelRefusal(
  channel: Channel,
  { model, ask }: { model: string; ask: VideoAsk },
): VideoRefusal | undefined {
  return providerOf(channel).video?.refusal?.(upstreamModelName(channel, model), ask);
}

function videoChannels(
  channels: readonly Channel[],
  input: { model: string; group: string },
): Channel[] {
  return eligibleChannels(channels, input).filter((channel) => servesKind(channel, "video"));
}

/**
 * The duration of a request that sent none: the gateway's default (5 s) when a channel that may
 * serve the model makes it, else the first such channel's upstream default (Sora 4 s, Veo 8 s).
 */
export function defaultVideoDuration(
  channels: readonly Channel[],
  input: { model: string; group: string },
): number {
  const eligible = videoChannels(channels, input);
  const makes = (channel: Channel, duration: number) =>
    !channelRefusal(channel, {
      model: input.model,
      ask: { duration, ratio: "adaptive", references: [] },
    });
  if (eligible.length === 0 || eligible.some((channel) => makes(channel, DEFAULT_DURATION))) {
    return DEFAULT_DURATION;
  }
  for (const channel of eligible) {
    const own = providerOf(channel).video?.defaultDuration;
    if (own !== undefined && makes(channel, own)) return own;
  }
  return DEFAULT_DURATION;
}

/**
 * Throws a 400 naming the field when every channel that may serve `model` to `group` refuses
 * `ask` (the first one's words); passes when one takes it, or when none is there (the task's
 * run reports that as it does today).
 */
export function checkVideoAsk(
  channels: readonly Channel[],
  input: { model: string; group: string; ask: VideoAsk },
): void {
  const eligible = videoChannels(channels, input);
  let first: VideoRefusal | undefined;
  for (const channel of eligible) {
    const refusal = channelRefusal(channel, input);
    if (!refusal) return;
    first ??= refusal;
  }
  if (first) throw invalidRequest(first.message, first.param);
}
