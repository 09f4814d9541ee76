/** What one text format's codec provides: requests out, answers both ways, streams both ways. */

import type {
  DroppableName,
  NeutralRequest,
  NeutralResponse,
  NeutralUsage,
  StreamDecoder,
  StreamEncoder,
} from "./neutral.ts";
import type { GeminiFraming } from "./gemini/encode_stream.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

export interface EncoderOptions {
  /** Chat: whether the client asked for usage in the stream. */
  includeUsage: boolean;
  /** Gemini: SSE or one JSON array. */
  framing: GeminiFraming;
  /** Responses: the client's request, whose settings the response object repeats. */
  body?: Json;
  /**
   * Responses: the sequence number of the encoder's first event, when it continues a stream
   * that another wrote (an error after a relayed upstream's events).
   */
  nextSequence?: number;
}

export interface FormatCodec {
  /** The body for an upstream of this format (`defaultMaxTokens` where the format needs one). */
  encodeRequest(
    request: NeutralRequest,
    target: { model: string; defaultMaxTokens: number },
  ): { body: Json; ignored: DroppableName[] };
  /** An upstream's whole answer, read through the format's lenient schemas. */
  decodeResponse(answer: unknown): NeutralResponse;
  /** `request` is the client's body (responses: its settings are repeated in the answer). */
  encodeResponse(answer: NeutralResponse, model: string, request?: Json): Json;
  /** Usage of a whole answer of this format. */
  usageOf(answer: unknown): NeutralUsage | undefined;
  /** Renames the model in a whole answer of this format (pass-through). */
  renameModel(answer: unknown, model: string): void;
  streamDecoder(): StreamDecoder;
  streamEncoder(model: string, options: EncoderOptions): StreamEncoder;
}
