/** Each text format's pieces, by format: requests out, answers both ways, streams both ways. */

import type { ChannelType } from "../channel_schema.ts";
import type { TextFormat } from "./neutral.ts";
import type { FormatCodec } from "./codec.ts";
import { openAIChatCodec } from "./openai_chat/mod.ts";
import { openAIResponsesCodec } from "./openai_responses/mod.ts";
import { anthropicCodec } from "./anthropic/mod.ts";
import { encodeGeminiRequest } from "./gemini/request_codec.ts";
import {
  decodeGeminiResponse,
  encodeGeminiResponse,
  geminiUsage,
} from "./gemini/response_codec.ts";
import { GeminiStreamDecoder, GeminiStreamEncoder } from "./gemini/stream_codec.ts";

export const CODECS: Record<TextFormat, FormatCodec> = {
  "openai-chat": openAIChatCodec,
  "openai-responses": openAIResponsesCodec,
  anthropic: anthropicCodec,
  gemini: {
    encodeRequest: (request) => encodeGeminiRequest(request),
    decodeResponse: decodeGeminiResponse,
    encodeResponse: encodeGeminiResponse,
    usageOf: (answer) => geminiUsage(answer?.usageMetadata),
    renameModel: (answer, model) => void (answer.modelVersion = model),
    streamDecoder: () => new GeminiStreamDecoder(),
    streamEncoder: (model, options) => new GeminiStreamEncoder(model, options.framing),
  },
};

/** The wire format a text channel type speaks. */
export const FORMAT_OF_CHANNEL: Partial<Record<ChannelType, TextFormat>> = {
  openai: "openai-chat",
  "openai-responses": "openai-responses",
  anthropic: "anthropic",
  gemini: "gemini",
};

/** The gateway's own interface for each format, for messages that point callers to one. */
export const INTERFACE_OF_FORMAT: Record<TextFormat, string> = {
  "openai-chat": "POST /v1/chat/completions",
  "openai-responses": "POST /v1/responses",
  anthropic: "POST /v1/messages",
  gemini: "POST /v1beta/models/{model}:generateContent",
};
