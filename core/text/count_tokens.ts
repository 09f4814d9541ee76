/**
 * Token counts for the messages interface: the upstream's own count when the model has an
 * anthropic channel, else the gateway's estimate (4 characters a token, 1,600 an image).
 */

import type { Gateway } from "../gateway.ts";
import type { KeyRecord } from "../key_schema.ts";
import { resolveModel } from "../model_access.ts";
import { pickUpstreamKey, upstreamModelName } from "../routing.ts";
import { decodeAnthropicRequest } from "../formats/anthropic/request_codec.ts";
import { ANTHROPIC_VERSION, readAnthropicError } from "../providers/text_upstreams.ts";
import { callUpstream } from "../images/image_generation.ts";
import { estimateNeutralTokens } from "./estimate.ts";
import { TEXT_CHANNEL_TYPES } from "./serve_text.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

export async function countMessageTokens(
  gateway: Gateway,
  key: KeyRecord,
  body: Json,
  signal: AbortSignal,
): Promise<{ body: { input_tokens: number }; source: "upstream" | "estimate" }> {
  const { order } = resolveModel(gateway, key, body.model, "text", TEXT_CHANNEL_TYPES);
  const channel = order.find((candidate) => candidate.type === "anthropic");
  if (channel) {
    try {
      const text = await callUpstream(
        channel,
        `${channel.base_url}/v1/messages/count_tokens`,
        {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-api-key": pickUpstreamKey(channel),
            "anthropic-version": ANTHROPIC_VERSION,
          },
          body: JSON.stringify({ ...body, model: upstreamModelName(channel, body.model) }),
        },
        signal,
        readAnthropicError,
      );
      const counted = JSON.parse(text)?.input_tokens;
      if (typeof counted === "number") {
        return { body: { input_tokens: counted }, source: "upstream" };
      }
    } catch {
      // fall back to the estimate below
    }
  }
  const neutral = decodeAnthropicRequest({ ...body, max_tokens: 1 });
  return { body: { input_tokens: estimateNeutralTokens(neutral) }, source: "estimate" };
}
