/**
 * The Gemini generate-content format: its whole codec, plus the pieces the inbound side uses
 * (the request decoder, gemini-only check and stream framing).
 */

import type { FormatCodec } from "../codec.ts";
import { fieldOf, setField } from "../../util/lenient_schema.ts";
import { encodeGeminiRequest } from "./encode_request.ts";
import { decodeGeminiResponse } from "./decode_response.ts";
import { encodeGeminiResponse } from "./encode_response.ts";
import { geminiUsage } from "./_usage.ts";
import { GeminiStreamDecoder } from "./decode_stream.ts";
import { GeminiStreamEncoder } from "./encode_stream.ts";

export { decodeGeminiRequest, geminiOnlyFeature } from "./decode_request.ts";
export type { GeminiFraming } from "./encode_stream.ts";

export const geminiCodec: FormatCodec = {
  encodeRequest: (request) => encodeGeminiRequest(request),
  decodeResponse: decodeGeminiResponse,
  encodeResponse: encodeGeminiResponse,
  usageOf: (answer) => geminiUsage(fieldOf(answer, "usageMetadata")),
  renameModel: (answer, model) => setField(answer, "modelVersion", model),
  streamDecoder: () => new GeminiStreamDecoder(),
  streamEncoder: (model, options) => new GeminiStreamEncoder(model, options.framing),
};
