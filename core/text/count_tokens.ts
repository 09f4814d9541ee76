/**
 * Token counts for the messages interface: the upstream's own count when the model has a
 * channel that counts (anthropic), else the gateway's estimate (4 characters a token, 1,600 an image).
 * The upstream gets the client's hints (`anthropic-beta`, `?beta=true`) as a messages call does.
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
): Promise<{
  body: { input_tokens: number };
  source: "upstream" | "estimate";
  /** Hints the counting channel removed, as `x-gateway-ignored-fields` entries. */
  ignored: string[];
}> {
  const { gateway, key, signal, clientHints: hints } = scope;
  const { order } = resolveModel(gateway.registry, { key, model: body.model, kind: "text" });
  const channel = order.find((candidate) => providerOf(candidate).text?.countTokens);
  if (channel) {
    try {
      const provider = providerOf(channel);
      const target = upstreamTarget(channel, body.model);
      const text = await callUpstream(
        channel,
        provider.text!.countTokens!(target, {
          body: JSON.stringify({ ...body, model: target.model }),
          hints,
        }),
        { signal, errors: provider.errors },
      );
      const counted = JSON.parse(text)?.input_tokens;
      if (typeof counted === "number") {
        const ignored = provider.text!.removedHints?.(channel, hints) ?? [];
        return { body: { input_tokens: counted }, source: "upstream", ignored };
      }
    } catch {
      // fall back to the estimate below
    }
  }
  const neutral = decodeAnthropicRequest({ ...body, max_tokens: 1 });
  return {
    body: { input_tokens: estimateNeutralTokens(neutral) },
    source: "estimate",
    ignored: [],
  };
}
