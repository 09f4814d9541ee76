/**
 * The Anthropic messages format: its whole codec, plus the pieces the routes, the inbound side
 * and token counting use (the request schemas, decoder and anthropic-only check).
 */

import type { FormatCodec } from "../codec.ts";
import { fieldOf, setField } from "../../util/lenient_schema.ts";
import { encodeAnthropicRequest } from "./encode_request.ts";
import { decodeAnthropicResponse } from "./decode_response.ts";
import { encodeAnthropicResponse } from "./encode_response.ts";
import { anthropicUsage } from "./_usage.ts";
import { AnthropicStreamDecoder } from "./decode_stream.ts";
import { AnthropicStreamEncoder } from "./encode_stream.ts";

export { anthropicOnlyFeature, decodeAnthropicRequest } from "./decode_request.ts";
export { countTokensSchema, messagesRequestSchema } from "./request_schema.ts";

export const anthropicCodec: FormatCodec = {
  encodeRequest: encodeAnthropicRequest,
  decodeResponse: decodeAnthropicResponse,
  encodeResponse: encodeAnthropicResponse,
  usageOf: (answer) => anthropicUsage(fieldOf(answer, "usage")),
  renameModel: (answer, model) => setField(answer, "model", model),
  streamDecoder: () => new AnthropicStreamDecoder(),
  streamEncoder: (model) => new AnthropicStreamEncoder(model),
};
