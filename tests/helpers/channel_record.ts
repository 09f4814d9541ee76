/** A channel record as the registry holds it, for unit tests of routing, breakers and marks. */

import type { Channel } from "../../core/channels/channel_schema.ts";

/** An enabled `openai` channel `id` serving model `m` to `default`, with `fields` over it. */
export function channelRecord(id: string, fields: Partial<Channel> = {}): Channel {
  return {
    id,
    name: id,
    type: "openai",
    base_url: "http://x",
    keys: ["k"],
    models: ["m"],
    model_map: {},
    priority: 0,
    weight: 1,
    groups: ["default"],
    enabled: true,
    timeout_ms: 1000,
    stream_idle_ms: 1000,
    source: "admin",
    created_at: "",
    updated_at: "",
    ...fields,
  };
}
