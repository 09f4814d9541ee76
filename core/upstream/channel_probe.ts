/**
 * What every channel test shares, whatever the channel's kind: the body it takes, the model it
 * tests, and one attempt run through the failover machinery (so its timeout, redirect refusal and
 * error redaction apply as to any request), counted in the channel's health and in
 * `gateway_upstream_attempts_total`. Nothing here bills: no hold, no ledger entry, no request log
 * record. What the one call is depends on the kind (core/text, core/images, core/video).
 */

import { z } from "zod";
import type { Channel } from "../channels/channel_schema.ts";
import { GatewayError } from "../errors.ts";
import type { Metrics } from "../telemetry/metrics.ts";
import type { AttemptRecord, RequestLog } from "../telemetry/request_log.ts";
import { redactSecrets } from "../util/redact.ts";
import { type AttemptTrace, withFailover } from "./failover.ts";

/** The body of `POST /admin/channels/{id}/test`; without a model, the channel's first is used. */
export const channelProbeSchema = z.strictObject({ model: z.string().min(1).optional() });

/** What a channel test answers. */
export interface ChannelProbeResult {
  ok: boolean;
  /** The upstream's HTTP status; null when no answer came (network, timeout). */
  status: number | null;
  latency_ms: number;
  error_class?: string;
  /** The upstream's error, with secrets removed. */
  error?: string;
  model: string;
  channel_id: string;
  /** The call the test made, in words (e.g. `one 1024x1024 image, quality low`). */
  call: string;
}

/** The model a test of `channel` uses: `model` if the channel serves it, else its first. */
export function probeModel(channel: Channel, model: string | undefined): string {
  if (model === undefined) return channel.models[0];
  if (!channel.models.includes(model)) {
    throw new GatewayError(
      "model_not_on_channel",
      400,
      `Channel '${channel.id}' does not serve model '${model}'; it serves ${
        channel.models.map((id) => `'${id}'`).join(", ")
      }`,
      { param: "model" },
    );
  }
  return model;
}

/** What running one test needs of the gateway. */
export interface ProbeContext {
  metrics: Metrics;
  requestLog: RequestLog;
  signal: AbortSignal;
}

/**
 * Runs `attempt` once on `channel` and answers what it did. The attempt counts in the channel's
 * health, written before this returns, so the page that shows the result shows it counted.
 */
export async function runProbe(
  channel: Channel,
  { model, call }: { model: string; call: string },
  attempt: (channel: Channel, trace: AttemptTrace) => Promise<void>,
  context: ProbeContext,
): Promise<ChannelProbeResult> {
  const attempts: AttemptRecord[] = [];
  await withFailover([channel], attempt, {
    maxAttempts: 1,
    signal: context.signal,
    metrics: context.metrics,
    log: attempts,
  }).catch(() => {
    // The attempt's record says what went wrong.
  });
  const record = attempts[0];
  if (!record) {
    throw new GatewayError("client_closed_request", 499, "The client closed the request");
  }
  context.requestLog.countAttempts([record]);
  await context.requestLog.flush();
  return {
    ok: record.outcome === "ok",
    status: record.status ?? null,
    latency_ms: record.latency_ms ?? 0,
    ...(record.error_class && { error_class: record.error_class }),
    ...(record.error && { error: redactSecrets(record.error, channel.keys) }),
    model,
    channel_id: channel.id,
    call,
  };
}
