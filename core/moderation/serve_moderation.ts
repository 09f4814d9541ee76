/**
 * Serves a moderation: the model resolved to its `openai` channels, its price held (0 by
 * default: free, yet held, logged and given a receipt like any request), the body passed through
 * with failover, OpenAI's answer returned as it came.
 */

import type { Channel } from "../channels/channel_schema.ts";
import { resolveModel } from "../channels/model_access.ts";
import type { Gateway } from "../gateway.ts";
import { RequestBill } from "../billing/request_bill.ts";
import { moderationReceipt } from "../billing/receipt.ts";
import type { ModerationPrice } from "../billing/moderation_price.ts";
import { settleAndLog } from "../billing/settle_and_log.ts";
import { providerOf, upstreamTarget } from "../providers/provider_table.ts";
import type { RequestScope } from "../scope.ts";
import { builtRequest, callUpstream } from "../upstream/call.ts";
import { type AttemptTrace, withFailover } from "../upstream/failover.ts";
import { headerList } from "../util/header_value.ts";
import { moderationInputs, type ModerationRequest } from "./request_schema.ts";

/** One attempt of `request` on `channel`: the answer as the client gets it. */
export async function attemptModeration(
  gateway: Gateway,
  channel: Channel,
  input: { request: ModerationRequest; signal: AbortSignal; trace?: AttemptTrace },
): Promise<Record<string, unknown>> {
  const provider = providerOf(channel);
  const moderation = provider.moderation!;
  const { request } = input;
  const text = await callUpstream(
    channel,
    builtRequest(
      moderation.request(upstreamTarget(channel, request.model, input.trace), {
        input: request.input,
      }),
    ),
    {
      signal: input.signal,
      trace: input.trace,
      errors: provider.errors,
      maxBytes: gateway.options.upstreamMaxBytes.text,
    },
  );
  return moderation.read(text);
}

/** Serves `request`; `ignoredFields` are the request's fields no moderation takes. */
export async function serveModeration(
  scope: RequestScope,
  input: { request: ModerationRequest; ignoredFields: string[] },
): Promise<{ body: Record<string, unknown>; headers: Record<string, string> }> {
  const { gateway, context, key, signal } = scope;
  const { request } = input;
  const { order, model } = resolveModel(gateway.registry, {
    key,
    model: request.model,
    kind: "moderation",
  });
  const pricing = moderationReceipt(
    model.price as ModerationPrice,
    { inputs: moderationInputs(request) },
    gateway.priceTierOf(key),
  );
  const bill = new RequestBill(gateway.ledger, { key, ref: context.id });
  await bill.hold(pricing.amount);
  let body: Record<string, unknown>;
  let channel: Channel;
  try {
    ({ result: body, channel } = await withFailover(
      order,
      (channel, trace) => attemptModeration(gateway, channel, { request, signal, trace }),
      gateway.failover(signal, context.upstreamAttempts),
    ));
    await bill.confirmed();
  } catch (error) {
    await bill.release("moderation request failed");
    throw error;
  }
  context.ignoredFields = input.ignoredFields;
  context.logsLater = true;
  const log = context.finishLater({ status: 200, channelId: channel.id });
  gateway.track(settleAndLog(bill, { pricing, log }));
  return {
    body,
    headers: {
      "x-gateway-channel": channel.id,
      "x-gateway-cost-units": String(pricing.amount),
      ...(input.ignoredFields.length
        ? { "x-gateway-ignored-fields": headerList(input.ignoredFields) }
        : {}),
    },
  };
}
