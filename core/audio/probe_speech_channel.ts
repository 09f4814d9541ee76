/**
 * The test of a speech model's channel: one real speech call of a single word (the cheapest the
 * upstream bills: one character short of nothing), read to its first audio bytes and then
 * dropped. The upstream bills the operator for those characters; the gateway bills nothing.
 */

import type { Channel } from "../channels/channel_schema.ts";
import type { Gateway } from "../gateway.ts";
import { type ChannelProbeResult, runProbe } from "../upstream/channel_probe.ts";
import { openSpeech } from "./speech_attempt.ts";
import type { SpeechRequest } from "../jobs/speech_job.ts";

const PROBE_INPUT = "Hi";

/** Tests `channel`'s speech model `model` with a two-character input. */
export function probeSpeechChannel(
  gateway: Gateway,
  input: { channel: Channel; model: string; signal: AbortSignal },
): Promise<ChannelProbeResult> {
  const { model, signal } = input;
  const job: SpeechRequest = {
    model,
    input: PROBE_INPUT,
    voice: "alloy",
    response_format: "mp3",
  };
  return runProbe(
    input.channel,
    {
      model,
      call:
        `speech of '${PROBE_INPUT}' (${PROBE_INPUT.length} characters, mp3, billed upstream, not by the gateway)`,
    },
    async (channel, trace) => {
      const opened = await openSpeech(channel, job, { signal, trace });
      opened.call.abort();
      await opened.reader.cancel().catch(() => {});
    },
    { metrics: gateway.metrics, requestLog: gateway.requestLog, signal },
  );
}
