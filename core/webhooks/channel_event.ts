/**
 * The payload of a channel event (`channel.disabled`, `channel.recovered`): `{type, timestamp,
 * data}` with the channel's id and name, the key's fingerprint when the change is one key's (null
 * for the whole channel), the reason and the time. Pure.
 */

import type { AutoChange } from "../channels/auto_disabler.ts";
import type { WebhookPayload } from "./task_event.ts";

export function channelEventPayload(change: AutoChange): WebhookPayload {
  return {
    type: change.event,
    timestamp: change.at,
    data: {
      channel_id: change.channel_id,
      name: change.channel_name,
      key_fingerprint: change.key_fingerprint,
      reason: change.reason,
      at: change.at,
    },
  };
}
