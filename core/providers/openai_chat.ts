/**
 * The `openai` channel type: an OpenAI-compatible chat-completions upstream, which also serves
 * audio models (speech: openai_speech.ts).
 */

import { OPENAI_ERRORS } from "./openai_errors.ts";
import { bearerJson, type Provider } from "./provider.ts";
import { openAISpeech } from "./openai_speech.ts";

export const openAIChatProvider: Provider = {
  kinds: ["text", "audio"],
  baseUrlExample: "https://api.openai.com/v1",
  appendedPaths: /\/(chat\/completions|completions|responses)$/,
  errors: OPENAI_ERRORS,
  text: {
    format: "openai-chat",
    request: ({ channel, apiKey }, { stream, body }) =>
      Promise.resolve({
        url: `${channel.base_url}/chat/completions`,
        init: {
          method: "POST",
          headers: bearerJson(apiKey, stream ? "text/event-stream" : "application/json"),
          body,
        },
      }),
  },
  speech: openAISpeech,
};
