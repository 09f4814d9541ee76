/**
 * Serves a rerank: the model resolved to its channels, the price held (search units, or the
 * tokens' upper bound), one call with failover, the answer normalised to
 * `{id, model, results[{index, relevance_score, document?}], usage, meta}` and the request billed
 * by the model's price unit off the response path.
 */

import type { Channel } from "../channels/channel_schema.ts";
import { resolveModel } from "../channels/model_access.ts";
import type { Gateway } from "../gateway.ts";
import { RequestBill } from "../billing/request_bill.ts";
import { rerankReceipt } from "../billing/receipt.ts";
import { rerankCost, type RerankPrice, searchUnitsOf } from "../billing/rerank_price.ts";
import { settleAndLog } from "../billing/settle_and_log.ts";
import { providerOf, upstreamTarget } from "../providers/provider_table.ts";
import type { RerankAnswer, RerankCall } from "../providers/provider.ts";
import type { RequestScope } from "../scope.ts";
import { builtRequest, callUpstream } from "../upstream/call.ts";
import { type AttemptTrace, withFailover } from "../upstream/failover.ts";
import { headerList } from "../util/header_value.ts";
import type { RerankRequest } from "./request_schema.ts";
import { estimateRerankTokens, rerankTokensUpperBound } from "./rerank_tokens.ts";

/** The 402's advice besides adding credit, for rerank requests. */
export const RERANK_REMEDY = "send fewer or shorter documents";

/** The client's answer: Cohere's and Jina's shape, which Dify and FastGPT read. */
export interface RerankBody {
  id: string;
  model: string;
  results: Array<{ index: number; relevance_score: number; document?: { text: string } }>;
  usage: { total_tokens: number; search_units: number };
  meta: { billed_units: { search_units: number; total_tokens?: number } };
}

/** One attempt of `call` on `channel`. */
export async function attemptRerank(
  gateway: Gateway,
  channel: Channel,
  input: { model: string; call: RerankCall; signal: AbortSignal; trace?: AttemptTrace },
): Promise<RerankAnswer> {
  const provider = providerOf(channel);
  const rerank = provider.rerank!;
  const text = await callUpstream(
    channel,
    builtRequest(rerank.request(upstreamTarget(channel, input.model, input.trace), input.call)),
    {
      signal: input.signal,
      trace: input.trace,
      errors: provider.errors,
      maxBytes: gateway.options.upstreamMaxBytes.text,
    },
  );
  return rerank.read(text, input.call);
}

/** The results as the client gets them: by score, best first, `top_n` of them. */
export function rankedResults(
  answer: RerankAnswer,
  request: Pick<RerankRequest, "documents" | "top_n" | "return_documents">,
): RerankBody["results"] {
  const ranked = answer.results.toSorted((a, b) => b.relevance_score - a.relevance_score)
    .slice(0, request.top_n ?? answer.results.length);
  return ranked.map(({ index, relevance_score }) => ({
    index,
    relevance_score,
    ...(request.return_documents ? { document: { text: request.documents[index] } } : {}),
  }));
}

/** Serves `request`; `ignoredFields` are the request's fields no rerank takes. */
export async function serveRerank(
  scope: RequestScope,
  input: { request: RerankRequest; ignoredFields: string[] },
): Promise<{ body: RerankBody; headers: Record<string, string> }> {
  const { gateway, context, key, signal } = scope;
  const { request } = input;
  const { order, model } = resolveModel(gateway.registry, {
    key,
    model: request.model,
    kind: "rerank",
  });
  const price = model.price as RerankPrice;
  const tier = gateway.priceTierOf(key);
  const searchUnits = searchUnitsOf(request.documents.length);
  const upperBound = rerankTokensUpperBound(request.query, request.documents);
  const bill = new RequestBill(gateway.ledger, { key, ref: context.id, remedy: RERANK_REMEDY });
  await bill.hold(rerankCost(price, { search_units: searchUnits, tokens: upperBound }, tier), {
    tokens: upperBound,
  });
  const call: RerankCall = {
    query: request.query,
    documents: request.documents,
    topN: request.top_n === undefined
      ? undefined
      : Math.min(request.top_n, request.documents.length),
  };
  let answer: RerankAnswer;
  let channel: Channel;
  try {
    ({ result: answer, channel } = await withFailover(
      order,
      (channel, trace) =>
        attemptRerank(gateway, channel, { model: request.model, call, signal, trace }),
      gateway.failover(signal, context.upstreamAttempts),
    ));
    await bill.confirmed();
  } catch (error) {
    await bill.release("rerank request failed");
    throw error;
  }
  const reported = answer.tokens !== undefined;
  const tokens = answer.tokens ?? estimateRerankTokens(request.query, request.documents);
  const pricing = rerankReceipt(
    price,
    { documents: request.documents.length, search_units: searchUnits, tokens },
    tier,
  );
  context.ignoredFields = input.ignoredFields;
  context.logsLater = true;
  const log = context.finishLater({
    status: 200,
    channelId: channel.id,
    usage: { input_tokens: tokens, cached_input_tokens: 0, output_tokens: 0 },
    usageSource: reported ? "upstream" : "estimate",
  });
  gateway.track(settleAndLog(bill, { pricing, log, tokens }));
  return {
    body: {
      id: context.id,
      model: request.model,
      results: rankedResults(answer, request),
      usage: { total_tokens: tokens, search_units: searchUnits },
      meta: {
        billed_units: {
          search_units: searchUnits,
          ...("input" in price ? { total_tokens: tokens } : {}),
        },
      },
    },
    headers: {
      "x-gateway-channel": channel.id,
      "x-gateway-cost-units": String(pricing.amount),
      ...(input.ignoredFields.length
        ? { "x-gateway-ignored-fields": headerList(input.ignoredFields) }
        : {}),
    },
  };
}
