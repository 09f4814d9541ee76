/**
 * Token counts (messages `count_tokens`, Gemini `countTokens`): the upstream's own count when the
 * model has a channel that counts (`anthropic`: /v1/messages/count_tokens, `gemini`:
 * :countTokens, `openai-responses`, `vertex`, `bedrock`: see each provider), the request
 * converted to that channel's format when it is another; else, or when that call fails (a model
 * or region the upstream cannot count), the gateway's estimate (4 characters a token, 1,600 an
 * image). Never billed. An `anthropic` upstream gets the client's hints (`anthropic-beta`,
 * `?beta=true`) as a messages call does (`vertex` and `bedrock` Claude its `anthropic-beta`).
 */

import { resolveModel } from "../channels/model_access.ts";
import type { CatalogModel } from "../channels/catalog.ts";
import { CODECS } from "../formats/codecs.ts";
import type { TokenCount } from "../providers/provider.ts";
import { providerOf, textFormatOf, upstreamTarget } from "../providers/provider_table.ts";
import { callUpstream } from "../upstream/call.ts";
import type { RequestScope } from "../scope.ts";
import type { TextInbound } from "./inbound.ts";

export type { TokenCount };

export interface CountedTokens {
  count: TokenCount;
  source: "upstream" | "estimate";
  /** Hints the counting channel removed, as `x-gateway-ignored-fields` entries. */
  ignored: string[];
}

/** The input tokens of `inbound`, a request of a model of `kind` (text, or image on Gemini). */
export async function countInputTokens(
  scope: RequestScope,
  inbound: TextInbound,
  { kind = "text" }: { kind?: CatalogModel["kind"] } = {},
): Promise<CountedTokens> {
  const { gateway, key, signal, clientHints: hints } = scope;
  const { order } = resolveModel(gateway.registry, { key, model: inbound.model, kind });
  const channel = order.find((candidate) => providerOf(candidate).text?.countTokens);
  if (channel) {
    try {
      const provider = providerOf(channel);
      const { countTokens: counter, removedHints } = provider.text!;
      const format = textFormatOf(channel, inbound.model);
      const target = upstreamTarget(channel, inbound.model);
      const request = format === inbound.format
        ? inbound.body
        : CODECS[format].encodeRequest(inbound.neutral(), {
          model: target.model,
          defaultMaxTokens: 1,
        }).body;
      const text = await callUpstream(
        channel,
        counter!.request(target, { request, hints }),
        { signal, errors: provider.errors },
      );
      const count = counter!.read(text);
      if (count) {
        return { count, source: "upstream", ignored: removedHints?.(channel, hints) ?? [] };
      }
    } catch {
      // fall back to the estimate below
    }
  }
  return { count: { input: inbound.inputEstimate() }, source: "estimate", ignored: [] };
}
