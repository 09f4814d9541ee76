/**
 * Upstream answers are read by lenient schemas (core/formats/<format>/answer_schemas.ts): a field a
 * vendor adds is ignored, a field of another type reads as missing, and neither fails the request;
 * token counts of another type are still refused by billing, never read as 0.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { decodeChatResponse } from "../../../core/formats/openai_chat/decode_response.ts";
import { decodeResponsesResponse } from "../../../core/formats/openai_responses/decode_response.ts";
import { decodeAnthropicResponse } from "../../../core/formats/anthropic/decode_response.ts";
import { decodeGeminiResponse } from "../../../core/formats/gemini/decode_response.ts";
import { ChatStreamDecoder } from "../../../core/formats/openai_chat/decode_stream.ts";
import { ResponsesStreamDecoder } from "../../../core/formats/openai_responses/decode_stream.ts";
import { AnthropicStreamDecoder } from "../../../core/formats/anthropic/decode_stream.ts";
import { GeminiStreamDecoder } from "../../../core/formats/gemini/decode_stream.ts";
import { believableUsage } from "../../../core/billing/usage.ts";

const BOUNDS = { maxInputTokens: 1000, maxOutputTokens: 1000, outputChars: 10 };
const ADDED = { a_field_added_next_year: { nested: [1, 2] } };

Deno.test("decodeChatResponse() ignores added fields and reads a mistyped list as missing", () => {
  const neutral = decodeChatResponse({
    ...ADDED,
    id: "c1",
    choices: [{
      ...ADDED,
      message: { content: "hi", tool_calls: { not: "a list" }, ...ADDED },
      finish_reason: "stop",
    }],
    usage: { prompt_tokens: 3, completion_tokens: 1, ...ADDED },
  });
  assertEquals(neutral.parts, [{ type: "text", text: "hi" }]);
  assertEquals(neutral.stop, "stop");
  assertEquals(neutral.usage?.input_tokens, 3);
});

Deno.test("decodeResponsesResponse() reads an output that is not a list as no output", () => {
  const neutral = decodeResponsesResponse({ ...ADDED, id: "r1", output: { type: "message" } });
  assertEquals(neutral.parts, []);
  assertEquals(neutral.id, "r1");
});

Deno.test("decodeAnthropicResponse() keeps the blocks it knows among unknown ones", () => {
  const neutral = decodeAnthropicResponse({
    ...ADDED,
    content: [null, { type: "a_new_block" }, { type: "text", text: "hi", ...ADDED }],
    stop_reason: "end_turn",
  });
  assertEquals(neutral.parts, [{ type: "text", text: "hi" }]);
  assertEquals(decodeAnthropicResponse({ content: { type: "text" } }).parts, []);
});

Deno.test("decodeGeminiResponse() reads parts that are not a list as none", () => {
  const neutral = decodeGeminiResponse({
    candidates: [{ content: { parts: { text: "x" } }, finishReason: "STOP", ...ADDED }],
  });
  assertEquals(neutral.parts, []);
  assertEquals(decodeGeminiResponse(null).parts, []);
});

Deno.test("stream decoders: chunks with added and mistyped fields decode, never throw", () => {
  const chat = new ChatStreamDecoder();
  assertEquals(
    chat.decode(
      undefined,
      JSON.stringify({ ...ADDED, choices: [{ delta: { content: "a", tool_calls: 5 } }] }),
    ),
    [{ type: "start", id: "", model: "" }, { type: "text", text: "a" }],
  );
  const responses = new ResponsesStreamDecoder();
  assertEquals(
    responses.decode(undefined, JSON.stringify({ type: "response.output_text.delta", delta: 7 })),
    [],
  );
  const anthropic = new AnthropicStreamDecoder();
  assertEquals(
    anthropic.decode(
      "content_block_delta",
      JSON.stringify({
        type: "content_block_delta",
        delta: { type: "text_delta", text: "b" },
        ...ADDED,
      }),
    ),
    [{ type: "text", text: "b" }],
  );
  const gemini = new GeminiStreamDecoder();
  assertEquals(
    gemini.decode(undefined, JSON.stringify({ candidates: "none", ...ADDED })),
    [{ type: "start", id: "", model: "" }],
  );
});

Deno.test("answer schemas: a token count of another type is refused by billing, not read as 0", () => {
  const chat = decodeChatResponse({ usage: { prompt_tokens: "12", completion_tokens: 3 } });
  assertOk(chat.usage !== undefined && Number.isNaN(chat.usage.input_tokens));
  assertEquals(believableUsage(chat.usage, BOUNDS), undefined);
  const gemini = decodeGeminiResponse({
    usageMetadata: { promptTokenCount: 4, candidatesTokenCount: -1 },
  });
  assertEquals(believableUsage(gemini.usage, BOUNDS), undefined);
});
