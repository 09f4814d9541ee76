/**
 * A channel test: one minimal real request (one short user turn, at most one output token)
 * through the channel's own provider code and the upstream call machinery, so its timeout,
 * redirect refusal and error redaction apply as to any request. Nothing is billed and nothing
 * reaches the ledger; the attempt counts in the channel's health like any other.
 */

import { z } from "zod";
import type { Channel } from "../channels/channel_schema.ts";
import { GatewayError } from "../errors.ts";
import { CODECS } from "../formats/codecs.ts";
import type { NeutralRequest, TextFormat } from "../formats/neutral.ts";
import type { Gateway } from "../gateway.ts";
import { providerOf, upstreamTarget } from "../providers/provider_table.ts";
import { NO_CLIENT_HINTS } from "../providers/client_hints.ts";
import type { AttemptRecord } from "../telemetry/request_log.ts";
import { UpstreamAttemptError } from "../upstream/attempt.ts";
import { openUpstream, readAnswer } from "../upstream/call.ts";
import { withFailover } from "../upstream/failover.ts";
import { redactSecrets } from "../util/redact.ts";

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
}

/** The fewest output tokens a format accepts (the Responses API refuses fewer than 16). */
const FEWEST_OUTPUT_TOKENS: Record<TextFormat, number> = {
  "openai-chat": 1,
  "openai-responses": 16,
  anthropic: 1,
  gemini: 1,
};

/** The upstream body of a test: one short user turn, as few output tokens as allowed. */
function probeBody(format: TextFormat, upstreamModel: string): string {
  const maxOutputTokens = FEWEST_OUTPUT_TOKENS[format];
  const request: NeutralRequest = {
    model: upstreamModel,
    system: [],
    messages: [{ role: "user", parts: [{ type: "text", text: "ping" }] }],
    tools: [],
    stream: false,
    options: { maxOutputTokens },
    fieldOf: {},
    unmapped: [],
  };
  const { body } = CODECS[format].encodeRequest(request, {
    model: upstreamModel,
    defaultMaxTokens: maxOutputTokens,
  });
  return JSON.stringify(body);
}

/** The model a test of `channel` uses: `model` if the channel serves it, else its first. */
function probeModel(channel: Channel, model: string | undefined): string {
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

/**
 * Tests `channel` with one minimal text request. Image and video channels are refused (400):
 * their upstreams have no call cheap enough to make on demand.
 */
export async function probeChannel(
  gateway: Gateway,
  input: { channel: Channel; model?: string; signal: AbortSignal },
): Promise<ChannelProbeResult> {
  const { channel, signal } = input;
  const provider = providerOf(channel);
  if (!provider.text) {
    throw new GatewayError(
      "channel_test_unsupported",
      400,
      `Channel tests are for text channels; '${channel.id}' is a ${channel.type} channel, whose ` +
        `upstream has no call cheap enough to test with. Send one real request to check it`,
    );
  }
  const model = probeModel(channel, input.model);
  const attempts: AttemptRecord[] = [];
  let status: number | null = null;
  await withFailover([channel], async (channel, trace) => {
    const target = upstreamTarget(channel, model);
    const body = probeBody(provider.text!.format, target.model);
    const { response, call } = await openUpstream(
      channel,
      provider.text!.request(target, { stream: false, body, hints: NO_CLIENT_HINTS }),
      { signal, errors: provider.errors, trace },
    );
    status = response.status;
    const text = await readAnswer(response, { call, maxBytes: 1024 * 1024 });
    try {
      JSON.parse(text);
    } catch {
      throw new UpstreamAttemptError("bad_answer: the upstream answered with invalid JSON", {
        retryable: true,
      });
    }
  }, { maxAttempts: 1, signal, metrics: gateway.metrics, log: attempts }).catch(() => {
    // The attempt's record says what went wrong.
  });
  const attempt = attempts[0];
  if (!attempt) {
    throw new GatewayError("client_closed_request", 499, "The client closed the request");
  }
  gateway.channelHealth.note(attempt);
  await gateway.requestLog.flush();
  return {
    ok: attempt.outcome === "ok",
    status: attempt.status ?? status,
    latency_ms: attempt.latency_ms,
    ...(attempt.error_class && { error_class: attempt.error_class }),
    ...(attempt.error && { error: redactSecrets(attempt.error, channel.keys) }),
    model,
    channel_id: channel.id,
  };
}
