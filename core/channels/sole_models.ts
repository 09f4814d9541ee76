/**
 * What stops being served when a channel goes (deleted or disabled): its models that no other
 * enabled channel lists. Pure; the registry's snapshot of channels is passed in.
 */

import type { Channel } from "./channel_schema.ts";

/** The models of channel `id` that no other enabled channel serves, in its own order. */
export function modelsOnlyServedBy(
  channels: readonly Pick<Channel, "id" | "enabled" | "models">[],
  id: string,
): string[] {
  const channel = channels.find((entry) => entry.id === id);
  if (!channel) return [];
  const others = channels.filter((entry) => entry.id !== id && entry.enabled);
  return [...new Set(channel.models)].filter((model) =>
    !others.some((other) => other.models.includes(model))
  );
}
