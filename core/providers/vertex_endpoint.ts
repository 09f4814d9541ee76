/**
 * Where a `vertex` channel's calls go: Google's global endpoint serves `global`, and a region
 * has a host of its own; any other base URL (a Private Service Connect endpoint, a proxy, a
 * multi-region host) is used as it is, for the model calls and the model list alike.
 */

import type { Channel } from "../channels/channel_schema.ts";

/** Vertex AI's global endpoint; a regional location is served by `{location}-aiplatform…`. */
export const VERTEX_BASE_URL = "https://aiplatform.googleapis.com";

/** The origin calls go to: a regional host for Google's own endpoint, else the base URL. */
export function vertexOrigin(channel: Pick<Channel, "base_url" | "location">): string {
  const location = channel.location ?? "global";
  if (channel.base_url === VERTEX_BASE_URL && location !== "global") {
    return `https://${location}-aiplatform.googleapis.com`;
  }
  return channel.base_url;
}
