/**
 * The test of an audio transcription model's channel: one real transcription of a tiny WAV (half
 * a second of a 440 Hz tone, 8 kHz mono 16-bit PCM, made here so that every build carries it),
 * `response_format=json`, through the channel's own provider code. The upstream bills the
 * operator for half a second; the gateway bills nothing.
 */

import type { Channel } from "../channels/channel_schema.ts";
import type { Gateway } from "../gateway.ts";
import { providerOf, upstreamTarget } from "../providers/provider_table.ts";
import { openUpstream, readAnswer } from "../upstream/call.ts";
import { type ChannelProbeResult, runProbe } from "../upstream/channel_probe.ts";
import { readJsonTranscript } from "./transcription_answer.ts";
import type { TranscriptionJob } from "../jobs/transcription_job.ts";

const RATE = 8000;
const SAMPLES = RATE / 2;

/** Half a second of a 440 Hz tone as a WAV file (44-byte header, PCM 16-bit mono). */
export function probeWav(): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(44 + SAMPLES * 2);
  const view = new DataView(bytes.buffer);
  const ascii = (offset: number, text: string) =>
    [...text].forEach((char, i) => view.setUint8(offset + i, char.charCodeAt(0)));
  ascii(0, "RIFF");
  view.setUint32(4, 36 + SAMPLES * 2, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, 1, true);
  view.setUint32(24, RATE, true);
  view.setUint32(28, RATE * 2, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  ascii(36, "data");
  view.setUint32(40, SAMPLES * 2, true);
  for (let i = 0; i < SAMPLES; i++) {
    view.setInt16(44 + i * 2, Math.round(8000 * Math.sin(2 * Math.PI * 440 * i / RATE)), true);
  }
  return bytes;
}

/** Tests `channel`'s audio model `model` with one transcription of half a second. */
export function probeAudioChannel(
  gateway: Gateway,
  input: { channel: Channel; model: string; signal: AbortSignal },
): Promise<ChannelProbeResult> {
  const { channel, model, signal } = input;
  const job: TranscriptionJob = {
    action: "transcriptions",
    model,
    file: { bytes: probeWav(), filename: "probe.wav", contentType: "audio/wav" },
    fields: [["response_format", "json"]],
    format: "json",
    stream: false,
  };
  return runProbe(
    channel,
    { model, call: "one transcription of a 0.5 s WAV (billed upstream, not by the gateway)" },
    async (channel, trace) => {
      const provider = providerOf(channel);
      const { response, call } = await openUpstream(
        channel,
        provider.transcription!.request(upstreamTarget(channel, model, trace), job),
        { signal, errors: provider.errors, trace },
      );
      readJsonTranscript(
        await readAnswer(response, { call, maxBytes: gateway.options.upstreamMaxBytes.text }),
      );
    },
    { metrics: gateway.metrics, requestLog: gateway.requestLog, signal },
  );
}
