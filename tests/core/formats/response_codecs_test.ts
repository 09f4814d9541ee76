import { assertEquals } from "../../helpers/assert.ts";
import { decodeGeminiResponse } from "../../../core/formats/gemini/decode_response.ts";
import { encodeGeminiResponse } from "../../../core/formats/gemini/encode_response.ts";
import { decodeAnthropicResponse } from "../../../core/formats/anthropic/decode_response.ts";
import { encodeAnthropicResponse } from "../../../core/formats/anthropic/encode_response.ts";
import { decodeChatResponse } from "../../../core/formats/openai_chat/decode_response.ts";
import { encodeChatResponse } from "../../../core/formats/openai_chat/encode_response.ts";
import { decodeResponsesResponse } from "../../../core/formats/openai_responses/decode_response.ts";
import { encodeResponsesResponse } from "../../../core/formats/openai_responses/encode_response.ts";

Deno.test("images out: a Gemini image part reaches chat, responses and Gemini clients", () => {
  const neutral = decodeGeminiResponse({
    candidates: [{
      content: {
        parts: [{ text: "here" }, { inlineData: { mimeType: "image/png", data: "QUJD" } }],
      },
      finishReason: "STOP",
    }],
    usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 1290 },
  });
  assertEquals(encodeChatResponse(neutral, "m").choices[0].message.images, [
    { type: "image_url", image_url: { url: "data:image/png;base64,QUJD" } },
  ]);
  assertEquals(encodeResponsesResponse(neutral, "m").output[1].result, "QUJD");
  assertEquals(encodeGeminiResponse(neutral, "m").candidates[0].content.parts[1], {
    inlineData: { mimeType: "image/png", data: "QUJD" },
  });
});

Deno.test("usage: cached tokens counted once through every format", () => {
  const anthropic = decodeAnthropicResponse({
    content: [{ type: "text", text: "x" }],
    stop_reason: "end_turn",
    usage: {
      input_tokens: 4,
      cache_read_input_tokens: 6,
      cache_creation_input_tokens: 2,
      output_tokens: 3,
    },
  });
  assertEquals(anthropic.usage, { input_tokens: 12, cached_input_tokens: 6, output_tokens: 3 });
  const chat = encodeChatResponse(anthropic, "m").usage;
  assertEquals([chat.prompt_tokens, chat.prompt_tokens_details.cached_tokens], [12, 6]);
  assertEquals(
    decodeChatResponse({ choices: [{ message: { content: "x" } }], usage: chat }).usage
      ?.input_tokens,
    12,
  );
  const back = encodeAnthropicResponse(anthropic, "m").usage;
  assertEquals([back.input_tokens, back.cache_read_input_tokens], [6, 6]);
  const responses = decodeResponsesResponse(encodeResponsesResponse(anthropic, "m"));
  assertEquals(responses.usage, {
    input_tokens: 12,
    cached_input_tokens: 6,
    output_tokens: 3,
    reasoning_tokens: 0,
  });
});

Deno.test("stop reasons map both ways", () => {
  const answer = (stop_reason: string) =>
    decodeAnthropicResponse({ content: [], stop_reason }).stop;
  assertEquals(["end_turn", "max_tokens", "tool_use", "refusal", "stop_sequence"].map(answer), [
    "stop",
    "length",
    "tool_calls",
    "content_filter",
    "stop",
  ]);
  const gemini = (finishReason: string) =>
    decodeGeminiResponse({ candidates: [{ content: { parts: [] }, finishReason }] }).stop;
  assertEquals(["STOP", "MAX_TOKENS", "SAFETY", "RECITATION"].map(gemini), [
    "stop",
    "length",
    "content_filter",
    "content_filter",
  ]);
  assertEquals(
    decodeResponsesResponse({
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
      output: [],
    }).stop,
    "length",
  );
  assertEquals(
    encodeAnthropicResponse({ id: "", model: "", created: 0, parts: [], stop: "length" }, "m")
      .stop_reason,
    "max_tokens",
  );
});
