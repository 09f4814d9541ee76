/**
 * Serves a text request of any inbound format on any text channel: resolve the model, hold,
 * try channels with failover, answer (JSON or stream), settle. Each step is its own file:
 * text_bill.ts, text_attempt.ts, json_answer.ts, stream_answer.ts.
 */

import { resolveModel } from "../channels/model_access.ts";
import type { RequestScope } from "../scope.ts";
import { withFailover } from "../upstream/failover.ts";
import { headerList } from "../util/header_value.ts";
import type { TextInbound } from "./inbound.ts";
import { jsonAnswer } from "./json_answer.ts";
import { streamAnswer } from "./stream_answer.ts";
import { attemptText, servableOrder } from "./text_attempt.ts";
import { TextBill } from "./text_bill.ts";
import { startTextCapture } from "./capture_text.ts";

export type TextAnswer =
  | { kind: "json"; body: string; headers: Record<string, string> }
  | {
    kind: "stream";
    stream: ReadableStream<Uint8Array>;
    headers: Record<string, string>;
    contentType: string;
  };

/** Serves one text request in `scope`. */
export async function serveText(scope: RequestScope, inbound: TextInbound): Promise<TextAnswer> {
  const { gateway, context, key, signal } = scope;
  const resolved = resolveModel(gateway.registry, { key, model: inbound.model, kind: "text" });
  const order = servableOrder(resolved.order, inbound, {
    strict: inbound.strictFields || key.strict_fields === true,
  });
  context.stream = inbound.stream;
  const capture = startTextCapture(scope, inbound);

  const bill = new TextBill(scope, { inbound, model: resolved.model });
  await bill.hold();
  const chosen = await withFailover(
    order,
    (channel, trace) =>
      attemptText(channel, inbound, {
        hints: scope.clientHints,
        maxOutput: bill.maxOutput,
        maxBytes: gateway.options.upstreamMaxBytes.text,
        maxEventBytes: gateway.options.upstreamMaxBytes.event,
        signal,
        trace,
      }),
    gateway.failover(signal, context.upstreamAttempts),
  ).catch(async (error) => {
    await bill.release("upstream call failed");
    capture?.failed(error);
    throw error;
  });
  const { channel, result: attempt } = chosen;
  await bill.confirmed().catch((error) => {
    capture?.failed(error);
    if (attempt.kind === "stream") {
      attempt.call.abort();
      attempt.events.cancel().catch(() => {});
    }
    throw error;
  });

  context.logsLater = true;
  const headers: Record<string, string> = { "x-gateway-channel": channel.id };
  if (attempt.ignored.length) headers["x-gateway-ignored-fields"] = headerList(attempt.ignored);
  // Set here, before the settle can log the request, whichever path serves the answer; as the
  // header gives them, as the middleware reads them for every other route.
  context.ignoredFields = headers["x-gateway-ignored-fields"]?.split(",") ?? [];
  if (attempt.kind === "json") {
    const body = jsonAnswer(attempt, { inbound, channel, bill });
    capture?.answered(body, channel.keys);
    return { kind: "json", body, headers };
  }
  const { stream, contentType } = streamAnswer(attempt, { inbound, channel, bill });
  return {
    kind: "stream",
    headers,
    contentType,
    stream: capture ? capture.tap(stream, channel.keys) : stream,
  };
}
