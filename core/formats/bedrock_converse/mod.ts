/**
 * Bedrock's Converse format (`/model/{id}/converse` and `/converse-stream`): an upstream format
 * only (no client speaks it to the gateway), so its codec writes no streams; its stream
 * decoder reads the events core/providers/bedrock.ts cuts from AWS's event stream.
 */

import type { FormatCodec } from "../codec.ts";
import { fieldOf } from "../../util/lenient_schema.ts";
import { encodeConverseRequest } from "./encode_request.ts";
import { decodeConverseResponse } from "./decode_response.ts";
import { encodeConverseResponse } from "./encode_response.ts";
import { ConverseStreamDecoder } from "./decode_stream.ts";
import { converseUsage } from "./_usage.ts";

export const bedrockConverseCodec: FormatCodec = {
  encodeRequest: encodeConverseRequest,
  decodeResponse: decodeConverseResponse,
  encodeResponse: encodeConverseResponse,
  usageOf: (answer) => converseUsage(fieldOf(answer, "usage")),
  // A Converse answer names no model.
  renameModel: () => {},
  streamDecoder: () => new ConverseStreamDecoder(),
  streamEncoder: () => {
    throw new Error("bedrock-converse is an upstream format: no client streams it");
  },
};
