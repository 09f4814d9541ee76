/** The `openai` channel type: an OpenAI-compatible chat-completions upstream. */

import { OPENAI_ERRORS } from "./openai_errors.ts";
import { bearerJson, type Provider } from "./provider.ts";
import { openAIEmbeddingProvider } from "./openai_embeddings.ts";

export const openAIChatProvider: Provider = {
  kinds: ["text", "embedding"],
  baseUrlExample: "https://api.openai.com/v1",
  appendedPaths: /\/(chat\/completions|completions|responses|embeddings)$/,
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
  embedding: openAIEmbeddingProvider,
};
