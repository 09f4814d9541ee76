/** The messages interface: Anthropic's client family, codec, body and reasoning rules. */

import type { ClientFamily, TextInterface } from "../text_interface.ts";
import {
  ANTHROPIC_MISSING_CREDENTIAL,
  readAnthropicCredential,
  sendsAnthropicCredential,
} from "./credential.ts";
import { anthropicErrorAnswer } from "./error_envelope.ts";
import { anthropicWithoutForeignReasoning } from "./foreign_reasoning.ts";
import { anthropicModel, anthropicModelList } from "./model_list.ts";
import { anthropicCodec, anthropicOnlyFeature, decodeAnthropicRequest } from "./mod.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

export const ANTHROPIC_FAMILY: ClientFamily = {
  name: "anthropic",
  readCredential: readAnthropicCredential,
  missingCredential: ANTHROPIC_MISSING_CREDENTIAL,
  ownsPath: (path) => path.startsWith("/v1/messages"),
  sendsOwnCredential: sendsAnthropicCredential,
  errorAnswer: anthropicErrorAnswer,
  requestIdHeader: "request-id",
  modelList: anthropicModelList,
  model: anthropicModel,
};

export const anthropicInterface: TextInterface = {
  format: "anthropic",
  name: "anthropic",
  route: "POST /v1/messages",
  paths: ["/v1/messages"],
  family: ANTHROPIC_FAMILY,
  codec: anthropicCodec,
  readRequest: (body: Json) => ({
    model: body.model,
    stream: body.stream === true,
    decode: () => decodeAnthropicRequest(body),
    exclusive: anthropicOnlyFeature(body),
    maxOutputTokens: body.max_tokens,
  }),
  passThroughBody: (body: Json, { upstreamModel }) =>
    JSON.stringify({ ...body, model: upstreamModel }),
  withoutForeignReasoning: anthropicWithoutForeignReasoning,
  fewestOutputTokens: 1,
};
