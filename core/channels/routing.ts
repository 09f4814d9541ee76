/** Picks the order in which channels are tried for one request. Pure: randomness is passed in. */

import type { Channel } from "./channel_schema.ts";
import { isAutoUsable, usableKeyIndexes } from "./auto_disable.ts";

/**
 * Channels that may serve `model` to a key of `group`: enabled by the operator, and neither
 * disabled whole nor left without a key by the gateway (auto_disable.ts).
 */
export function eligibleChannels(
  channels: readonly Channel[],
  { model, group }: { model: string; group: string },
) {
  return channels.filter((channel) =>
    channel.enabled && channel.models.includes(model) && channel.groups.includes(group) &&
    isAutoUsable(channel)
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

/**
 * Picks one of a channel's upstream keys at random, spreading load over them, among those the
 * gateway has not disabled (all of them when it disabled every one). Returns its index.
 */
export function pickUpstreamKeyIndex(
  channel: Channel,
  random: () => number = Math.random,
): number {
  if (!channel.auto_disabled) return Math.floor(random() * channel.keys.length);
  const usable = usableKeyIndexes(channel);
  if (usable.length === 0) return Math.floor(random() * channel.keys.length);
  return usable[Math.floor(random() * usable.length)];
}

/** Picks one of a channel's usable upstream keys at random (pickUpstreamKeyIndex). */
export function pickUpstreamKey(channel: Channel, random: () => number = Math.random): string {
  return channel.keys[pickUpstreamKeyIndex(channel, random)];
}

/** The upstream key of `channel` whose fingerprint is `fingerprint`, if it still has it. */
export function keyByFingerprint(channel: Channel, fingerprint: string): string | undefined {
  return channel.keys.find((key) => channel.fingerprints?.get(key) === fingerprint);
}
