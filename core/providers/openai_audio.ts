/**
 * OpenAI's audio transcription and translation calls on `openai` channels: the client's
 * multipart form sent again to `{base_url}/audio/transcriptions|translations` with the upstream
 * model name and the audio under a name whose extension is its format (OpenAI judges the format
 * by it).
 */

import type { TranscriptionJob } from "../jobs/transcription_job.ts";
import type { UpstreamRequest } from "../upstream/call.ts";
import { bearerAuth, type UpstreamTarget } from "./provider.ts";

export function buildOpenAITranscriptionRequest(
  { channel, apiKey, model }: UpstreamTarget,
  job: TranscriptionJob,
): UpstreamRequest {
  const form = new FormData();
  form.append("model", model);
  for (const [name, value] of job.fields) form.append(name, value);
  form.append(
    "file",
    new Blob([job.file.bytes], { type: job.file.contentType }),
    job.file.filename,
  );
  return {
    url: `${channel.base_url}/audio/${job.action}`,
    init: {
      method: "POST",
      headers: {
        ...bearerAuth(apiKey),
        accept: job.stream ? "text/event-stream" : "application/json, text/plain",
      },
      body: form,
    },
  };
}
