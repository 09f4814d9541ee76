/** The responses interface: OpenAI's client family, its own body and reasoning rules. */

import type { TextInterface } from "../text_interface.ts";
import { OPENAI_FAMILY } from "../openai_chat/interface.ts";
import { responsesWithoutForeignReasoning } from "./foreign_reasoning.ts";
import {
  decodeResponsesRequest,
  openAIResponsesCodec,
  responsesOnlyFeature,
  responsesStrictFeature,
} from "./mod.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

export const openAIResponsesInterface: TextInterface = {
  format: "openai-responses",
  name: "openai-responses",
  route: "POST /v1/responses",
  paths: ["/v1/responses"],
  family: OPENAI_FAMILY,
  codec: openAIResponsesCodec,
  readRequest: (body: Json) => ({
    model: body.model,
    stream: body.stream === true,
    decode: () => decodeResponsesRequest(body),
    exclusive: responsesOnlyFeature(body),
    strictExclusive: responsesStrictFeature(body),
    maxOutputTokens: body.max_output_tokens ?? undefined,
  }),
  passThroughBody: (body: Json, { upstreamModel }) =>
    JSON.stringify({ ...body, model: upstreamModel }),
  withoutForeignReasoning: responsesWithoutForeignReasoning,
  // The Responses API refuses fewer than 16.
  fewestOutputTokens: 16,
};
