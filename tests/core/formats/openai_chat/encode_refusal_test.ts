/** Converted chat completions carry `refusal` (null) where OpenAI's answers do. */

import { assertEquals } from "../../../helpers/assert.ts";
import { encodeChatResponse } from "../../../../core/formats/openai_chat/encode_response.ts";
import { ChatStreamEncoder } from "../../../../core/formats/openai_chat/encode_stream.ts";

Deno.test("encodeChatResponse() writes message.refusal null and no annotations", () => {
  const answer = encodeChatResponse({
    id: "x",
    model: "up",
    created: 1,
    stop: "stop",
    parts: [{ type: "text", text: "hi" }],
  }, "m");
  assertEquals(answer.choices[0].message, {
    role: "assistant",
    content: "hi",
    refusal: null,
    annotations: [],
  });
});

Deno.test("ChatStreamEncoder's first chunk carries refusal null beside the role, as OpenAI's", () => {
  const encoder = new ChatStreamEncoder("m", false);
  const first = encoder.encode({ type: "start", id: "x", model: "up" });
  const chunk = JSON.parse(first.slice("data: ".length));
  assertEquals(chunk.choices[0].delta, { role: "assistant", content: "", refusal: null });
});
