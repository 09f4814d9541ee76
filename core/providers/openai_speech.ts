/**
 * OpenAI's `POST /audio/speech` on an `openai` channel, passed through: the request's fields as
 * they came (the model mapped), but `instructions` for tts-1 and tts-1-hd, which do not take it.
 * The answer is the audio itself, relayed by core/audio/speech_pump.ts.
 */

import { type SpeechRequest, takesInstructions } from "../jobs/speech_job.ts";
import type { UpstreamRequest } from "../upstream/call.ts";
import { bearerJson, type SpeechProvider, type UpstreamTarget } from "./provider.ts";

/** The fields of `job` the upstream model cannot honour. */
function ignoredSpeechFields({ model }: UpstreamTarget, job: SpeechRequest): string[] {
  return job.instructions !== undefined && !takesInstructions(model) ? ["instructions"] : [];
}

/** The speech call for `job` on `target`. */
export function buildOpenAISpeechRequest(
  target: UpstreamTarget,
  job: SpeechRequest,
): UpstreamRequest {
  const ignored = new Set(ignoredSpeechFields(target, job));
  const body: Record<string, unknown> = {
    model: target.model,
    input: job.input,
    voice: job.voice,
    response_format: job.response_format,
  };
  if (job.speed !== undefined) body.speed = job.speed;
  if (job.instructions !== undefined && !ignored.has("instructions")) {
    body.instructions = job.instructions;
  }
  if (job.stream_format !== undefined) body.stream_format = job.stream_format;
  return {
    url: `${target.channel.base_url}/audio/speech`,
    init: {
      method: "POST",
      headers: bearerJson(target.apiKey, "audio/*, application/octet-stream"),
      body: JSON.stringify(body),
    },
  };
}

export const openAISpeech: SpeechProvider = {
  request: (target, job) => Promise.resolve(buildOpenAISpeechRequest(target, job)),
  ignoredFields: ignoredSpeechFields,
};
