/**
 * The OpenAI chat-completions format: its whole codec, plus the pieces the routes and the
 * inbound side use (the request schema and decoder, the pass-through relay and estimates).
 */

import type { FormatCodec } from "../codec.ts";
import { fieldOf, setField } from "../../util/lenient_schema.ts";
import { encodeChatRequest } from "./encode_request.ts";
import { decodeChatResponse } from "./decode_response.ts";
import { encodeChatResponse } from "./encode_response.ts";
import { chatUsage } from "./_usage.ts";
import { ChatStreamDecoder } from "./decode_stream.ts";
import { ChatStreamEncoder } from "./encode_stream.ts";

export { decodeChatRequest } from "./decode_request.ts";
export { type ChatRequest, chatRequestSchema } from "./request_schema.ts";
export {
  estimateOutputTokens,
  estimatePromptTokens,
  promptTokensUpperBound,
} from "./estimate_tokens.ts";
export { OpenAIChatStreamRelay, type StreamRelayOptions } from "./stream_relay.ts";

export const openAIChatCodec: FormatCodec = {
  encodeRequest: (request, { model }) => encodeChatRequest(request, model),
  decodeResponse: decodeChatResponse,
  encodeResponse: encodeChatResponse,
  usageOf: (answer) => chatUsage(fieldOf(answer, "usage")),
  renameModel: (answer, model) => setField(answer, "model", model),
  streamDecoder: () => new ChatStreamDecoder(),
  streamEncoder: (model, options) => new ChatStreamEncoder(model, options.includeUsage),
};
