/** The `openai-responses` channel type: an upstream of OpenAI's responses API. */

import { OPENAI_ERRORS } from "../upstream/error_reader.ts";
import { bearerJson, type Provider } from "./provider.ts";

export const openAIResponsesProvider: Provider = {
  kinds: ["text"],
  baseUrlExample: "https://api.openai.com/v1",
  appendedPaths: /\/(responses|chat\/completions)$/,
  errors: OPENAI_ERRORS,
  text: {
    format: "openai-responses",
    request: ({ channel, apiKey }, { stream, body }) => ({
      url: `${channel.base_url}/responses`,
      init: {
        method: "POST",
        headers: bearerJson(apiKey, stream ? "text/event-stream" : "application/json"),
        body,
      },
    }),
  },
};
