/** The chat completions interface, and the OpenAI client family it shares with responses. */

import type { ClientFamily, TextInterface } from "../text_interface.ts";
import { OPENAI_MISSING_CREDENTIAL, readOpenAICredential } from "./credential.ts";
import { openAIErrorAnswer } from "./error_envelope.ts";
import { openAIModel, openAIModelList } from "./model_list.ts";
import { decodeChatRequest, openAIChatCodec } from "./mod.ts";
import { estimatePromptTokens, promptTokensUpperBound } from "./estimate_tokens.ts";
import { OpenAIChatStreamRelay } from "./stream_relay.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** OpenAI's SDKs: a Bearer key, OpenAI's envelope and model list; every path not another's. */
export const OPENAI_FAMILY: ClientFamily = {
  name: "openai",
  readCredential: readOpenAICredential,
  missingCredential: OPENAI_MISSING_CREDENTIAL,
  ownsPath: () => false,
  sendsOwnCredential: () => false,
  errorAnswer: openAIErrorAnswer,
  modelList: openAIModelList,
  model: openAIModel,
};

export const openAIChatInterface: TextInterface = {
  format: "openai-chat",
  name: "openai-chat",
  route: "POST /v1/chat/completions",
  paths: ["/v1/chat/completions"],
  family: OPENAI_FAMILY,
  codec: openAIChatCodec,
  readRequest: (body: Json) => ({
    model: body.model,
    stream: body.stream === true,
    decode: () => decodeChatRequest(body),
    exclusive: (body.n ?? 1) > 1 ? "n" : null,
    includeUsage: body.stream_options?.include_usage === true,
    maxOutputTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
    inputUpperBound: () => promptTokensUpperBound(body),
    inputEstimate: () => estimatePromptTokens(body),
  }),
  passThroughBody(body: Json, { upstreamModel, stream }) {
    return JSON.stringify({
      ...body,
      model: upstreamModel,
      // The gateway always asks for usage, to bill from it (the relay hides it if unasked).
      ...(stream ? { stream_options: { ...body.stream_options, include_usage: true } } : {}),
    });
  },
  ownStreamRelay: (options) => new OpenAIChatStreamRelay(options),
  fewestOutputTokens: 1,
  answersField: "choices",
  answersAskedFor: (body: Json) => body?.n,
};
