/** The text formats, one row each: a format's whole codec comes from its folder's `mod.ts`. */

import type { TextFormat } from "./neutral.ts";
import type { FormatCodec } from "./codec.ts";
import { openAIChatCodec } from "./openai_chat/mod.ts";
import { openAIResponsesCodec } from "./openai_responses/mod.ts";
import { anthropicCodec } from "./anthropic/mod.ts";
import { geminiCodec } from "./gemini/mod.ts";
import { bedrockConverseCodec } from "./bedrock_converse/mod.ts";

export const CODECS: Record<TextFormat, FormatCodec> = {
  "openai-chat": openAIChatCodec,
  "openai-responses": openAIResponsesCodec,
  anthropic: anthropicCodec,
  gemini: geminiCodec,
  "bedrock-converse": bedrockConverseCodec,
};
