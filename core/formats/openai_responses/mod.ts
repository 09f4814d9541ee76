/**
 * The OpenAI responses format: its whole codec, plus the pieces the routes and the inbound side
 * use (the request schema, decoder and responses-only check).
 */

import type { FormatCodec } from "../codec.ts";
import { fieldOf, setField } from "../../util/lenient_schema.ts";
import { encodeResponsesRequest } from "./encode_request.ts";
import { decodeResponsesResponse } from "./decode_response.ts";
import { encodeResponsesResponse } from "./encode_response.ts";
import { responsesUsage } from "./_usage.ts";
import { ResponsesStreamDecoder } from "./decode_stream.ts";
import { ResponsesStreamEncoder } from "./encode_stream.ts";

export {
  decodeResponsesRequest,
  responsesOnlyFeature,
  responsesStrictFeature,
} from "./decode_request.ts";
export { responsesRequestSchema } from "./request_schema.ts";

export const openAIResponsesCodec: FormatCodec = {
  encodeRequest: (request, { model }) => encodeResponsesRequest(request, model),
  decodeResponse: decodeResponsesResponse,
  encodeResponse: encodeResponsesResponse,
  usageOf: (answer) => responsesUsage(fieldOf(answer, "usage")),
  renameModel: (answer, model) => setField(answer, "model", model),
  streamDecoder: () => new ResponsesStreamDecoder(),
  streamEncoder: (model, options) => new ResponsesStreamEncoder(model, options),
};
