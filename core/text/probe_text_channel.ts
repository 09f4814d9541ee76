/**
 * The test of a text model's channel: one minimal real request (one short user turn, at most one
 * output token) through the channel's own provider code (core/upstream/channel_probe.ts runs it).
 */

import type { Channel } from "../channels/channel_schema.ts";
import { CODECS } from "../formats/codecs.ts";
import { findTextInterface } from "../formats/interfaces.ts";
import type { NeutralRequest, TextFormat } from "../formats/neutral.ts";
import type { Gateway } from "../gateway.ts";
import { providerOf, textFormatOf, upstreamTarget } from "../providers/provider_table.ts";
import { NO_CLIENT_HINTS } from "../providers/client_hints.ts";
import { UpstreamAttemptError } from "../upstream/attempt.ts";
import { openUpstream, readAnswer } from "../upstream/call.ts";
import { type ChannelProbeResult, runProbe } from "../upstream/channel_probe.ts";

/** The fewest output tokens `format`'s upstreams take (1 for a format no client speaks). */
function fewestOutputTokens(format: TextFormat): number {
  return findTextInterface(format)?.fewestOutputTokens ?? 1;
}

/** The upstream body of a test: one short user turn, as few output tokens as allowed. */
function probeBody(format: TextFormat, upstreamModel: string): string {
  const maxOutputTokens = fewestOutputTokens(format);
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

/** Tests `channel`'s text model `model` with one minimal text request. */
export function probeTextChannel(
  gateway: Gateway,
  input: { channel: Channel; model: string; signal: AbortSignal },
): Promise<ChannelProbeResult> {
  const { channel, model, signal } = input;
  const text = providerOf(channel).text!;
  const format = textFormatOf(channel, model);
  const maxOutputTokens = fewestOutputTokens(format);
  return runProbe(
    channel,
    {
      model,
      call: `one user turn 'ping', at most ${maxOutputTokens} output token${
        maxOutputTokens === 1 ? "" : "s"
      }`,
    },
    async (channel, trace) => {
      const target = upstreamTarget(channel, model);
      const body = probeBody(format, target.model);
      const { response, call } = await openUpstream(
        channel,
        text.request(target, { stream: false, body, hints: NO_CLIENT_HINTS }),
        { signal, errors: providerOf(channel).errors, trace },
      );
      const answer = await readAnswer(response, { call, maxBytes: 1024 * 1024 });
      try {
        JSON.parse(answer);
      } catch {
        throw new UpstreamAttemptError("bad_answer: the upstream answered with invalid JSON", {
          retryable: true,
        });
      }
    },
    { metrics: gateway.metrics, requestLog: gateway.requestLog, signal },
  );
}
