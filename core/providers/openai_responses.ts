/** The `openai-responses` channel type: an upstream of OpenAI's responses API. */

import { OPENAI_ERRORS } from "./openai_errors.ts";
import { bearerJson, isTokenCount, type Provider } from "./provider.ts";
import { z } from "zod";
import { readLenientJson, unknownField } from "../util/lenient_schema.ts";
import { OPENAI_MODEL_LIST } from "./model_list.ts";

/** `POST /responses/input_tokens`' answer; the count is judged by the reader. */
const inputTokensSchema = z.looseObject({ input_tokens: unknownField });

/** The fields of a responses request that `POST /responses/input_tokens` takes. */
const COUNTED_FIELDS = [
  "input",
  "instructions",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "reasoning",
  "text",
  "truncation",
  "conversation",
  "previous_response_id",
];

export const openAIResponsesProvider: Provider = {
  kinds: ["text"],
  baseUrlExample: "https://api.openai.com/v1",
  appendedPaths: /\/(responses|chat\/completions)$/,
  errors: OPENAI_ERRORS,
  modelList: OPENAI_MODEL_LIST,
  keyless: true,
  text: {
    format: "openai-responses",
    request: ({ channel, apiKey }, { stream, body }) =>
      Promise.resolve({
        url: `${channel.base_url}/responses`,
        init: {
          method: "POST",
          headers: bearerJson(apiKey, stream ? "text/event-stream" : "application/json"),
          body,
        },
      }),
    countTokens: {
      request: ({ channel, apiKey, model }, { request }) =>
        Promise.resolve({
          url: `${channel.base_url}/responses/input_tokens`,
          init: {
            method: "POST",
            headers: bearerJson(apiKey),
            body: JSON.stringify(
              Object.fromEntries([
                ["model", model],
                ...COUNTED_FIELDS.filter((field) => request[field] !== undefined)
                  .map((field) => [field, request[field]]),
              ]),
            ),
          },
        }),
      read: (text) => {
        const counted = readLenientJson(inputTokensSchema, text).input_tokens;
        return isTokenCount(counted) ? { input: counted } : undefined;
      },
    },
  },
};
