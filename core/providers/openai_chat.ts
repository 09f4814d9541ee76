/**
 * The `openai` channel type: an OpenAI-compatible chat-completions upstream, which also serves
 * moderations and `audio` models (transcriptions and translations, openai_audio.ts; speech,
 * openai_speech.ts).
 */

import { OPENAI_ERRORS } from "./openai_errors.ts";
import { buildOpenAITranscriptionRequest } from "./openai_audio.ts";
import { bearerJson, type Provider } from "./provider.ts";
import { openAIModerations } from "./openai_moderations.ts";
import { OPENAI_MODEL_LIST } from "./model_list.ts";
import { openAISpeech } from "./openai_speech.ts";
import { openAIEmbeddingProvider } from "./openai_embeddings.ts";

/** `body` without `stream_options`, for an upstream that refuses the field (Mistral). */
function withoutStreamOptions(body: string): string {
  const parsed = JSON.parse(body);
  delete parsed.stream_options;
  return JSON.stringify(parsed);
}

export const openAIChatProvider: Provider = {
  kinds: ["text", "moderation", "audio", "embedding"],
  baseUrlExample: "https://api.openai.com/v1",
  appendedPaths: /\/(chat\/completions|completions|responses|moderations|embeddings)$/,
  errors: OPENAI_ERRORS,
  moderation: openAIModerations,
  modelList: OPENAI_MODEL_LIST,
  keyless: true,
  settings: ["send_stream_options"],
  text: {
    format: "openai-chat",
    request: ({ channel, apiKey }, { stream, body }) =>
      Promise.resolve({
        url: `${channel.base_url}/chat/completions`,
        init: {
          method: "POST",
          headers: bearerJson(apiKey, stream ? "text/event-stream" : "application/json"),
          body: stream && channel.send_stream_options === false ? withoutStreamOptions(body) : body,
        },
      }),
  },
  transcription: {
    request: (target, job) => Promise.resolve(buildOpenAITranscriptionRequest(target, job)),
  },
  speech: openAISpeech,
  embedding: openAIEmbeddingProvider,
};
