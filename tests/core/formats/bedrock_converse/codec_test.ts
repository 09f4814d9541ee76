/** The Converse format: requests encoded, answers and streams decoded (pure functions). */

import { assertEquals, assertOk } from "../../../helpers/assert.ts";
import { encodeConverseRequest } from "../../../../core/formats/bedrock_converse/encode_request.ts";
import { decodeConverseResponse } from "../../../../core/formats/bedrock_converse/decode_response.ts";
import { ConverseStreamDecoder } from "../../../../core/formats/bedrock_converse/decode_stream.ts";
import { CODECS } from "../../../../core/formats/codecs.ts";
import type { NeutralEvent, NeutralRequest } from "../../../../core/formats/neutral.ts";
import { signatureFor, signatureFrom } from "../../../../core/formats/signature.ts";

const CLAUDE = "us.anthropic.claude-sonnet-4-20250514-v1:0";
const NOVA = "amazon.nova-pro-v1:0";

function request(fields: Partial<NeutralRequest> = {}): NeutralRequest {
  return {
    model: "m",
    system: [],
    messages: [{ role: "user", parts: [{ type: "text", text: "hi" }] }],
    tools: [],
    stream: false,
    options: {},
    fieldOf: {},
    unmapped: [],
    ...fields,
  };
}

Deno.test("converse request: messages of content blocks, system, inferenceConfig and toolConfig", () => {
  const signed = signatureFrom("sig-1", { format: "bedrock-converse" });
  const { body, ignored } = encodeConverseRequest(
    request({
      system: ["be brief", "be kind"],
      messages: [
        {
          role: "user",
          parts: [
            { type: "text", text: "look" },
            { type: "image", mimeType: "image/png", data: "iVBOR" },
            { type: "image_url", url: "data:image/jpeg;base64,/9j/" },
          ],
        },
        {
          role: "assistant",
          parts: [
            { type: "reasoning", text: "hmm", signature: signed },
            { type: "tool_call", id: "t1", name: "get_weather", arguments: '{"city":"Oslo"}' },
          ],
        },
        {
          role: "user",
          parts: [
            { type: "text", text: "and?" },
            { type: "tool_result", callId: "t1", content: "rain", isError: false },
          ],
        },
      ],
      tools: [{ name: "get_weather", description: "weather", parameters: { type: "object" } }],
      toolChoice: "required",
      options: { maxOutputTokens: 300, temperature: 0.2, topP: 0.9, stop: ["END"], seed: 7 },
      fieldOf: { seed: "seed" },
    }),
    { model: NOVA, defaultMaxTokens: 1000 },
  );
  assertEquals(body, {
    messages: [
      {
        role: "user",
        content: [
          { text: "look" },
          { image: { format: "png", source: { bytes: "iVBOR" } } },
          { image: { format: "jpeg", source: { bytes: "/9j/" } } },
        ],
      },
      {
        role: "assistant",
        content: [
          { reasoningContent: { reasoningText: { text: "hmm", signature: "sig-1" } } },
          { toolUse: { toolUseId: "t1", name: "get_weather", input: { city: "Oslo" } } },
        ],
      },
      {
        role: "user",
        content: [{ toolResult: { toolUseId: "t1", content: [{ text: "rain" }] } }, {
          text: "and?",
        }],
      },
    ],
    system: [{ text: "be brief" }, { text: "be kind" }],
    toolConfig: {
      tools: [{
        toolSpec: {
          name: "get_weather",
          description: "weather",
          inputSchema: { json: { type: "object" } },
        },
      }],
      toolChoice: { any: {} },
    },
    inferenceConfig: { maxTokens: 300, temperature: 0.2, topP: 0.9, stopSequences: ["END"] },
  });
  assertEquals(ignored, ["seed"]);
});

Deno.test("converse request: thinking is Claude's additional field; other models drop it, named", () => {
  const thinking = request({ options: { reasoning: { budgetTokens: 2048 }, temperature: 0.5 } });
  const claude = encodeConverseRequest(thinking, { model: CLAUDE, defaultMaxTokens: 4000 });
  assertEquals(claude.body.additionalModelRequestFields, {
    thinking: { type: "enabled", budget_tokens: 2048 },
  });
  assertEquals(claude.body.inferenceConfig, { maxTokens: 4000 });
  assertEquals(claude.ignored, ["temperature"]);
  const nova = encodeConverseRequest(thinking, { model: NOVA, defaultMaxTokens: 4000 });
  assertEquals(nova.body.additionalModelRequestFields, undefined);
  assertEquals(nova.ignored, ["reasoning"]);
});

Deno.test("converse request: an image by https address is dropped and named (Converse takes bytes)", () => {
  const { body, ignored } = encodeConverseRequest(
    request({
      messages: [{
        role: "user",
        parts: [{ type: "text", text: "see" }, { type: "image_url", url: "https://x/cat.png" }],
      }],
    }),
    { model: NOVA, defaultMaxTokens: 100 },
  );
  assertEquals(body.messages[0].content, [{ text: "see" }]);
  assertEquals(ignored, ["imageUrl"]);
});

Deno.test("converse request: reasoning another provider signed is dropped and named", () => {
  const { body, ignored } = encodeConverseRequest(
    request({
      messages: [
        { role: "user", parts: [{ type: "text", text: "q" }] },
        {
          role: "assistant",
          parts: [{
            type: "reasoning",
            text: "mine",
            signature: signatureFrom("x", { format: "anthropic" }),
          }, { type: "text", text: "a" }],
        },
        { role: "user", parts: [{ type: "text", text: "q2" }] },
      ],
    }),
    { model: CLAUDE, defaultMaxTokens: 100 },
  );
  assertEquals(body.messages[1].content, [{ text: "a" }]);
  assertEquals(ignored, ["reasoningHistory"]);
});

Deno.test("converse answer: text, tool use, reasoning with its signature, stop and usage with cache reads", () => {
  const answer = decodeConverseResponse({
    output: {
      message: {
        role: "assistant",
        content: [
          { reasoningContent: { reasoningText: { text: "thinking", signature: "s1" } } },
          { text: "Hello" },
          { toolUse: { toolUseId: "tu1", name: "get_weather", input: { city: "Oslo" } } },
        ],
      },
    },
    stopReason: "tool_use",
    usage: {
      inputTokens: 100,
      outputTokens: 20,
      totalTokens: 1020,
      cacheReadInputTokens: 900,
      cacheWriteInputTokens: 0,
    },
    metrics: { latencyMs: 10 },
  });
  assertEquals(answer.parts[0].type, "reasoning");
  assertEquals(
    answer.parts[0].type === "reasoning" &&
      signatureFor(answer.parts[0].signature, "bedrock-converse"),
    { value: "s1", kind: "thinking" },
  );
  assertEquals(answer.parts.slice(1), [
    { type: "text", text: "Hello" },
    { type: "tool_call", id: "tu1", name: "get_weather", arguments: '{"city":"Oslo"}' },
  ]);
  assertEquals(answer.stop, "tool_calls");
  assertEquals(answer.usage, { input_tokens: 1000, cached_input_tokens: 900, output_tokens: 20 });
  assertEquals(CODECS["bedrock-converse"].usageOf({ usage: { inputTokens: 5, outputTokens: 1 } }), {
    input_tokens: 5,
    cached_input_tokens: 0,
    output_tokens: 1,
  });
  assertEquals(decodeConverseResponse({ stopReason: "max_tokens" }).stop, "length");
  assertEquals(
    decodeConverseResponse({ stopReason: "guardrail_intervened" }).stop,
    "content_filter",
  );
});

Deno.test("converse stream: text, reasoning, a tool call's input in pieces, stop, then usage", () => {
  const decoder = new ConverseStreamDecoder();
  const events: NeutralEvent[] = [];
  const feed = (event: string, data: unknown) =>
    events.push(...decoder.decode(event, JSON.stringify(data)));
  feed("messageStart", { role: "assistant" });
  feed("contentBlockDelta", { contentBlockIndex: 0, delta: { reasoningContent: { text: "hm" } } });
  feed("contentBlockDelta", {
    contentBlockIndex: 0,
    delta: { reasoningContent: { signature: "sig" } },
  });
  feed("contentBlockStop", { contentBlockIndex: 0 });
  feed("contentBlockDelta", { contentBlockIndex: 1, delta: { text: "Hi" } });
  feed("contentBlockStart", {
    contentBlockIndex: 2,
    start: { toolUse: { toolUseId: "tu1", name: "get_weather" } },
  });
  feed("contentBlockDelta", { contentBlockIndex: 2, delta: { toolUse: { input: '{"ci' } } });
  feed("contentBlockDelta", { contentBlockIndex: 2, delta: { toolUse: { input: 'ty":"Oslo"}' } } });
  feed("messageStop", { stopReason: "tool_use" });
  assertEquals(decoder.completed, false, "not complete before metadata");
  feed("metadata", {
    usage: { inputTokens: 10, outputTokens: 5, totalTokens: 35, cacheReadInputTokens: 20 },
    metrics: { latencyMs: 1 },
  });
  assertOk(decoder.completed);
  assertEquals(events[0], { type: "start", id: "", model: "" });
  assertEquals(events[1], { type: "reasoning", text: "hm" });
  assertEquals(
    events[2].type === "reasoning_signature" &&
      signatureFor(events[2].signature, "bedrock-converse")?.value,
    "sig",
  );
  assertEquals(events.slice(3), [
    { type: "text", text: "Hi" },
    { type: "tool_call", index: 0, id: "tu1", name: "get_weather", arguments: "" },
    { type: "tool_call", index: 0, arguments: '{"ci' },
    { type: "tool_call", index: 0, arguments: 'ty":"Oslo"}' },
    { type: "stop", reason: "tool_calls" },
    { type: "usage", usage: { input_tokens: 30, cached_input_tokens: 20, output_tokens: 5 } },
  ]);
  assertEquals(decoder.usage, { input_tokens: 30, cached_input_tokens: 20, output_tokens: 5 });
});

Deno.test("converse stream: an exception event is the stream's error", () => {
  const decoder = new ConverseStreamDecoder();
  assertEquals(
    decoder.decode(
      "exception",
      JSON.stringify({ type: "throttlingException", message: "slow down" }),
    ),
    [{ type: "error", message: "slow down", code: "throttlingException" }],
  );
  assertEquals(decoder.error, "slow down");
  assertEquals(decoder.completed, false);
});
