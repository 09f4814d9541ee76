/** The generate-content interface: Google's client family, codec, body and reasoning rules. */

import type { ClientFamily, TextInterface } from "../text_interface.ts";
import {
  GEMINI_MISSING_CREDENTIAL,
  isGeminiPath,
  readGeminiCredential,
  sendsGeminiCredential,
} from "./credential.ts";
import { geminiErrorAnswer } from "./error_envelope.ts";
import { geminiWithoutForeignReasoning } from "./foreign_reasoning.ts";
import { geminiModel, geminiModelList } from "./model_list.ts";
import { decodeGeminiRequest, geminiCodec, geminiOnlyFeature } from "./mod.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

export const GEMINI_FAMILY: ClientFamily = {
  name: "gemini",
  readCredential: readGeminiCredential,
  missingCredential: GEMINI_MISSING_CREDENTIAL,
  ownsPath: isGeminiPath,
  sendsOwnCredential: sendsGeminiCredential,
  errorAnswer: geminiErrorAnswer,
  modelList: geminiModelList,
  model: geminiModel,
};

export const geminiInterface: TextInterface = {
  format: "gemini",
  name: "gemini",
  route: "POST /v1beta/models/{model}:generateContent",
  // Every generate-content route (the model is in the path) names its record "gemini".
  paths: [],
  family: GEMINI_FAMILY,
  codec: geminiCodec,
  // The model and streaming are in the path; a body alone asks for neither.
  readRequest: (
    body: Json,
    { model, stream, framing } = { model: "", stream: false, framing: "sse" },
  ) => ({
    model,
    stream,
    decode: () => decodeGeminiRequest(body, { model, stream }),
    exclusive: geminiOnlyFeature(body),
    framing,
    maxOutputTokens: body.generationConfig?.maxOutputTokens ?? undefined,
  }),
  // The model is in the path, not the body: the body goes as it came.
  passThroughBody: (body) => JSON.stringify(body),
  // Google's streams carry no event names and end each event with CRLF CRLF.
  relayFrame: (_event, data) => `data: ${data}\r\n\r\n`,
  withoutForeignReasoning: geminiWithoutForeignReasoning,
  fewestOutputTokens: 1,
  answersField: "candidates",
  answersAskedFor: (body: Json) => body?.generationConfig?.candidateCount,
};
