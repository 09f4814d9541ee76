import { assertEquals } from "../../helpers/assert.ts";
import { decodeChatRequest } from "../../../core/formats/openai_chat/decode_request.ts";
import { encodeChatRequest } from "../../../core/formats/openai_chat/encode_request.ts";
import {
  decodeResponsesRequest,
  responsesOnlyFeature,
} from "../../../core/formats/openai_responses/decode_request.ts";
import { encodeResponsesRequest } from "../../../core/formats/openai_responses/encode_request.ts";
import {
  anthropicOnlyFeature,
  decodeAnthropicRequest,
} from "../../../core/formats/anthropic/decode_request.ts";
import { encodeAnthropicRequest } from "../../../core/formats/anthropic/encode_request.ts";
import {
  decodeGeminiRequest,
  geminiOnlyFeature,
  jsonSchemaOf,
} from "../../../core/formats/gemini/decode_request.ts";
import {
  encodeGeminiRequest,
  SKIP_SIGNATURE,
} from "../../../core/formats/gemini/encode_request.ts";

const chatBody = {
  model: "m",
  messages: [
    { role: "system", content: "Be brief." },
    {
      role: "user",
      content: [
        { type: "text", text: "look" },
        { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
      ],
    },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "c1", type: "function", function: { name: "a", arguments: '{"x":1}' } },
        { id: "c2", type: "function", function: { name: "b", arguments: "{}" } },
      ],
    },
    { role: "tool", tool_call_id: "c1", content: "one" },
    { role: "tool", tool_call_id: "c2", content: "two" },
    { role: "system", content: "Later rule." },
    { role: "user", content: "next" },
  ],
  tools: [{ type: "function", function: { name: "a", parameters: { type: "object" } } }],
  tool_choice: "required",
  max_tokens: 99,
  temperature: 0.3,
  seed: 4,
  logprobs: true,
};

Deno.test("chat decode: systems lifted, tool results joined to the next user turn, images, options", () => {
  const neutral = decodeChatRequest(chatBody);
  assertEquals(neutral.system, ["Be brief.", "Later rule."]);
  assertEquals(neutral.messages.map((m) => m.role), ["user", "assistant", "user"]);
  assertEquals(neutral.messages[0].parts[1], {
    type: "image",
    mimeType: "image/png",
    data: "AAAA",
  });
  assertEquals(neutral.messages[2].parts.map((p) => p.type), [
    "tool_result",
    "tool_result",
    "text",
  ]);
  assertEquals(neutral.toolChoice, "required");
  assertEquals(neutral.options.maxOutputTokens, 99);
  assertEquals(neutral.fieldOf.maxOutputTokens, "max_tokens");
  assertEquals(neutral.unmapped, ["logprobs"]);
});

Deno.test("anthropic encode: system top-level, tool results first in their turn, thinking needs room", () => {
  const neutral = decodeChatRequest({ ...chatBody, reasoning_effort: "high" });
  const { body, ignored } = encodeAnthropicRequest(neutral, {
    model: "claude",
    defaultMaxTokens: 2048,
  });
  assertEquals(body.system, "Be brief.\n\nLater rule.");
  assertEquals(body.messages.map((m: { role: string }) => m.role), ["user", "assistant", "user"]);
  assertEquals(body.messages[2].content.map((b: { type: string }) => b.type), [
    "tool_result",
    "tool_result",
    "text",
  ]);
  assertEquals(body.messages[1].content[0].input, { x: 1 });
  assertEquals(body.tool_choice, { type: "any" });
  // max_tokens 99 leaves no room for the 1,024-token minimum thinking budget.
  assertEquals(body.thinking, undefined);
  assertEquals(ignored.sort(), ["reasoning", "seed"]);
  const options = { ...neutral.options, maxOutputTokens: 20000 };
  // The last assistant turn made calls without thinking (chat has none to replay): Anthropic
  // would refuse thinking for it, so it is named instead.
  const calls = encodeAnthropicRequest({ ...neutral, options }, {
    model: "c",
    defaultMaxTokens: 1,
  });
  assertEquals(calls.body.thinking, undefined);
  assertEquals(calls.ignored.includes("reasoning"), true);
  const roomy = encodeAnthropicRequest({
    ...neutral,
    messages: neutral.messages.slice(0, 1),
    options,
  }, { model: "c", defaultMaxTokens: 1 });
  assertEquals(roomy.body.thinking, { type: "enabled", budget_tokens: 16384 });
  assertEquals(roomy.body.temperature, undefined);
  assertEquals(roomy.ignored.includes("temperature"), true);
});

Deno.test("gemini encode: function responses named after their calls, skip-signature on replayed calls", () => {
  const { body } = encodeGeminiRequest(decodeChatRequest(chatBody));
  assertEquals(body.systemInstruction, { parts: [{ text: "Be brief.\n\nLater rule." }] });
  const [user, model, results] = body.contents;
  assertEquals(user.parts[1], { inlineData: { mimeType: "image/png", data: "AAAA" } });
  assertEquals(model.role, "model");
  assertEquals(model.parts[0], {
    functionCall: { name: "a", args: { x: 1 } },
    thoughtSignature: SKIP_SIGNATURE,
  });
  assertEquals(results.parts.slice(0, 2), [
    { functionResponse: { name: "a", response: { result: "one" } } },
    { functionResponse: { name: "b", response: { result: "two" } } },
  ]);
  assertEquals(body.toolConfig, { functionCallingConfig: { mode: "ANY" } });
  assertEquals(body.generationConfig.maxOutputTokens, 99);
});

Deno.test("gemini decode: calls without ids get ids, responses match by name in order, OpenAPI schemas", () => {
  const neutral = decodeGeminiRequest({
    contents: [
      { role: "user", parts: [{ text: "go" }] },
      {
        role: "model",
        parts: [{ functionCall: { name: "f", args: { a: 1 } } }, {
          functionCall: { name: "f", args: { a: 2 } },
        }],
      },
      {
        role: "user",
        parts: [{ functionResponse: { name: "f", response: { result: "r1" } } }, {
          functionResponse: { name: "f", response: { result: "r2" } },
        }],
      },
    ],
    tools: [{
      functionDeclarations: [{
        name: "f",
        parameters: { type: "OBJECT", properties: { a: { type: "INTEGER" } } },
      }],
    }],
    toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["f"] } },
  }, { model: "m", stream: false });
  const [call1, call2] = neutral.messages[1].parts as Array<{ id: string }>;
  const results = neutral.messages[2].parts as Array<{ callId: string; content: string }>;
  assertEquals(results.map((r) => [r.callId, r.content]), [[call1.id, "r1"], [call2.id, "r2"]]);
  assertEquals(neutral.tools[0].parameters, {
    type: "object",
    properties: { a: { type: "integer" } },
  });
  assertEquals(neutral.toolChoice, { name: "f" });
  assertEquals(jsonSchemaOf({ type: "ARRAY", items: { type: "STRING" } }), {
    type: "array",
    items: { type: "string" },
  });
});

Deno.test("responses: input items both ways; function outputs keep their call ids", () => {
  const neutral = decodeResponsesRequest({
    model: "m",
    instructions: "sys",
    input: [
      { role: "user", content: "hi" },
      { type: "function_call", call_id: "k", name: "f", arguments: "{}" },
      { type: "function_call_output", call_id: "k", output: "done" },
    ],
    reasoning: { effort: "medium" },
    store: true,
  });
  assertEquals(neutral.system, ["sys"]);
  assertEquals(neutral.options.reasoning, { effort: "medium" });
  assertEquals(neutral.unmapped, []);
  const chat = encodeChatRequest(neutral, "up").body;
  assertEquals(chat.messages.map((m: { role: string }) => m.role), [
    "system",
    "user",
    "assistant",
    "tool",
  ]);
  assertEquals(chat.reasoning_effort, "medium");
  const back = encodeResponsesRequest(neutral, "up").body;
  assertEquals(back.input.map((i: { type?: string }) => i.type ?? "message"), [
    "message",
    "function_call",
    "function_call_output",
  ]);
  assertEquals(back.store, false);
});

Deno.test("only-own-format features are found", () => {
  assertEquals(responsesOnlyFeature({ previous_response_id: "r" }), "previous_response_id");
  assertEquals(responsesOnlyFeature({ tools: [{ type: "function" }] }), null);
  assertEquals(
    anthropicOnlyFeature({ tools: [{ type: "bash_20250124", name: "bash" }] }),
    "tools[type=bash_20250124]",
  );
  assertEquals(anthropicOnlyFeature({ tools: [{ name: "f", input_schema: {} }] }), null);
  assertEquals(geminiOnlyFeature({ tools: [{ codeExecution: {} }] }), "tools[codeExecution]");
  assertEquals(
    geminiOnlyFeature({ generationConfig: { responseModalities: ["TEXT", "IMAGE"] } }),
    "generationConfig.responseModalities[IMAGE]",
  );
  assertEquals(
    decodeAnthropicRequest({
      model: "m",
      max_tokens: 5,
      messages: [],
      tool_choice: { type: "auto", disable_parallel_tool_use: true },
    }).options.parallelToolCalls,
    false,
  );
});
