/**
 * One speech attempt on a channel: the call, and its answer's first bytes read before the client
 * is answered, so a refusal, an empty answer or a connection lost before any audio moves on to
 * the next channel instead of reaching the client as a broken file.
 */

import type { Channel } from "../channels/channel_schema.ts";
import { providerOf, upstreamTarget } from "../providers/provider_table.ts";
import { networkFailure, UpstreamAttemptError } from "../upstream/attempt.ts";
import { openUpstream } from "../upstream/call.ts";
import type { AttemptTrace } from "../upstream/failover.ts";
import type { SpeechRequest } from "../jobs/speech_job.ts";
import type { SpeechUpstream } from "./speech_pump.ts";

/** Stream idle time of channels stored before `stream_idle_ms` existed. */
const DEFAULT_STREAM_IDLE_MS = 60_000;

/**
 * Answer types that are not audio whatever their status says: a relay that wraps an error in a
 * 200 answers JSON, HTML or text, which must not reach the client as its audio file.
 */
const NOT_AUDIO = /^(application\/(json|problem\+json)|text\/)/;

export interface OpenedSpeech extends SpeechUpstream {
  /** Fields of the request the channel's model cannot honour. */
  ignored: string[];
}

/** Opens `job` on `channel` and reads up to its first audio bytes. */
export async function openSpeech(
  channel: Channel,
  job: SpeechRequest,
  options: { signal: AbortSignal; trace?: AttemptTrace },
): Promise<OpenedSpeech> {
  const provider = providerOf(channel);
  if (!provider.speech) {
    throw new UpstreamAttemptError(`bad_answer: a ${channel.type} channel does not speak`, {
      retryable: true,
    });
  }
  const target = upstreamTarget(channel, job.model, options.trace);
  const { response, call } = await openUpstream(channel, provider.speech.request(target, job), {
    signal: options.signal,
    trace: options.trace,
    errors: provider.errors,
  });
  try {
    const type = (response.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
    if (NOT_AUDIO.test(type)) {
      await response.body?.cancel();
      throw new UpstreamAttemptError(`bad_answer: the upstream answered ${type}, not audio`, {
        retryable: true,
      });
    }
    if (!response.body) {
      throw new UpstreamAttemptError("bad_answer: the upstream answered without audio", {
        retryable: true,
      });
    }
    const reader = response.body.getReader();
    let first: Uint8Array | undefined;
    while (!first) {
      const next = await reader.read();
      if (next.done) {
        throw new UpstreamAttemptError("bad_answer: the upstream answered without audio", {
          retryable: true,
        });
      }
      if (next.value.length) first = next.value;
    }
    call.streaming(channel.stream_idle_ms ?? DEFAULT_STREAM_IDLE_MS);
    return { first, reader, call, ignored: provider.speech.ignoredFields(target, job) };
  } catch (error) {
    call.abort();
    throw networkFailure(error, call);
  }
}
