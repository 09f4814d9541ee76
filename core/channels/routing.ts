/** Picks the order in which channels are tried for one request. Pure: randomness is passed in. */

import type { Channel } from "./channel_schema.ts";

/** Channels that may serve `model` to a key of `group`. */
export function eligibleChannels(
  channels: readonly Channel[],
  { model, group }: { model: string; group: string },
) {
  return channels.filter((channel) =>
    channel.enabled && channel.models.includes(model) && channel.groups.includes(group)
  );
}

/**
 * Orders channels for failover: highest priority tier first; within a tier a weighted random
 * order (Efraimidis–Spirakis: sort by u^(1/weight) descending), so the first pick in a tier has
 * probability weight/sum and later picks never repeat a channel.
 */
export function planChannelOrder(
  channels: readonly Channel[],
  random: () => number = Math.random,
): Channel[] {
  const keyed = channels.map((channel) => ({
    channel,
    key: Math.pow(random() || Number.MIN_VALUE, 1 / channel.weight),
  }));
  keyed.sort((a, b) => b.channel.priority - a.channel.priority || b.key - a.key);
  return keyed.map((entry) => entry.channel);
}

/** The upstream model name for a public model id on a channel. */
export function upstreamModelName(channel: Channel, model: string): string {
  return channel.model_map[model] ?? model;
}

/** Picks one of a channel's upstream keys at random, spreading load over them. */
export function pickUpstreamKey(channel: Channel, random: () => number = Math.random): string {
  return channel.keys[Math.floor(random() * channel.keys.length)];
}
