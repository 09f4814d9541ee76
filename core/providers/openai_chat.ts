/** The `openai` channel type: an OpenAI-compatible chat-completions upstream. */

import { OPENAI_ERRORS } from "./openai_errors.ts";
import { bearerJson, type Provider } from "./provider.ts";
import { OPENAI_MODEL_LIST } from "./model_list.ts";

export const openAIChatProvider: Provider = {
  kinds: ["text"],
  baseUrlExample: "https://api.openai.com/v1",
  appendedPaths: /\/(chat\/completions|completions|responses)$/,
  errors: OPENAI_ERRORS,
  modelList: OPENAI_MODEL_LIST,
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
};
