/**
 * Token counts for the messages interface: the upstream's own count when the model has a
 * channel that counts (anthropic), else the gateway's estimate (4 characters a token, 1,600 an image).
 */

import { resolveModel } from "../channels/model_access.ts";
import { decodeAnthropicRequest } from "../formats/anthropic/mod.ts";
import { providerOf, upstreamTarget } from "../providers/provider_table.ts";
import { callUpstream } from "../upstream/call.ts";
import { estimateNeutralTokens } from "./estimate.ts";
import type { RequestScope } from "../scope.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

export async function countMessageTokens(
  scope: RequestScope,
  body: Json,
): Promise<{ body: { input_tokens: number }; source: "upstream" | "estimate" }> {
  const { gateway, key, signal } = scope;
  const { order } = resolveModel(gateway.registry, { key, model: body.model, kind: "text" });
  const channel = order.find((candidate) => providerOf(candidate).text?.countTokens);
  if (channel) {
    try {
      const provider = providerOf(channel);
      const target = upstreamTarget(channel, body.model);
      const text = await callUpstream(
        channel,
        provider.text!.countTokens!(target, JSON.stringify({ ...body, model: target.model })),
        { signal, errors: provider.errors },
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
