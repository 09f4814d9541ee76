import { assertEquals, assertOk } from "../../helpers/assert.ts";
import type { NeutralEvent } from "../../../core/formats/neutral.ts";
import { AnthropicStreamDecoder } from "../../../core/formats/anthropic/decode_stream.ts";
import { AnthropicStreamEncoder } from "../../../core/formats/anthropic/encode_stream.ts";
import { ChatStreamDecoder } from "../../../core/formats/openai_chat/decode_stream.ts";
import { ChatStreamEncoder } from "../../../core/formats/openai_chat/encode_stream.ts";
import { ResponsesStreamEncoder } from "../../../core/formats/openai_responses/encode_stream.ts";
import { GeminiStreamDecoder } from "../../../core/formats/gemini/decode_stream.ts";
import { GeminiStreamEncoder } from "../../../core/formats/gemini/encode_stream.ts";

const usage = { input_tokens: 10, cached_input_tokens: 4, output_tokens: 5 };
const events: NeutralEvent[] = [
  { type: "start", id: "x", model: "up" },
  { type: "reasoning", text: "hmm" },
  { type: "text", text: "Hi" },
  { type: "tool_call", index: 0, id: "c0", name: "f", arguments: '{"a"' },
  { type: "tool_call", index: 0, arguments: ":1}" },
  { type: "tool_call", index: 1, id: "c1", name: "g", arguments: "{}" },
  { type: "stop", reason: "stop" },
  { type: "usage", usage },
];

function frames(text: string): Array<{ event?: string; data: unknown }> {
  return text.split("\n\n").filter(Boolean).map((frame) => {
    const event = /^event: (.*)$/m.exec(frame)?.[1];
    const data = /^data: (.*)$/m.exec(frame)![1];
    return { event, data: data === "[DONE]" ? data : JSON.parse(data) };
  });
}

Deno.test("anthropic encoder: blocks in order, each event named, stop upgraded to tool_use, usage split", () => {
  const encoder = new AnthropicStreamEncoder("pub");
  const out = frames(events.map((event) => encoder.encode(event)).join("") + encoder.end());
  assertOk(out.every((frame) => frame.event === (frame.data as { type: string }).type));
  const kinds = out.map((frame) => frame.event);
  assertEquals(kinds.slice(0, 3), ["message_start", "ping", "content_block_start"]);
  const starts = out.filter((f) => f.event === "content_block_start").map((
    f,
  ) => (f.data as { index: number; content_block: { type: string } }));
  assertEquals(starts.map((s) => [s.index, s.content_block.type]), [[0, "thinking"], [1, "text"], [
    2,
    "tool_use",
  ], [3, "tool_use"]]);
  const delta = out.find((f) => f.event === "message_delta")!.data as {
    delta: { stop_reason: string };
    usage: Record<string, number | null>;
  };
  assertEquals(delta.delta.stop_reason, "tool_use");
  assertEquals(delta.usage, {
    input_tokens: 6,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 4,
    output_tokens: 5,
    output_tokens_details: null,
    server_tool_use: null,
  });
  assertEquals(kinds.at(-1), "message_stop");
});

Deno.test("chat encoder: role first, tool calls by index with id only on the first, usage then [DONE]", () => {
  const encoder = new ChatStreamEncoder("pub", true);
  const out = frames(events.map((event) => encoder.encode(event)).join("") + encoder.end());
  // deno-lint-ignore no-explicit-any
  const chunks = out.map((frame) => frame.data as any);
  assertEquals(chunks[0].choices[0].delta, { role: "assistant", content: "", refusal: null });
  const calls = chunks.flatMap((c) => c.choices?.[0]?.delta?.tool_calls ?? []);
  assertEquals(calls.map((c: { index: number; id?: string }) => [c.index, c.id]), [[0, "c0"], [
    0,
    undefined,
  ], [1, "c1"]]);
  assertEquals(
    chunks.find((c) => c.choices?.[0]?.finish_reason).choices[0].finish_reason,
    "tool_calls",
  );
  assertEquals(chunks.at(-2).usage.prompt_tokens_details.cached_tokens, 4);
  assertEquals(out.at(-1)!.data, "[DONE]");
});

Deno.test("responses encoder: sequence numbers rise, items open and close, completed carries output", () => {
  const encoder = new ResponsesStreamEncoder("pub");
  const out = frames(events.map((event) => encoder.encode(event)).join("") + encoder.end());
  // deno-lint-ignore no-explicit-any
  const data = out.map((frame) => frame.data as any);
  assertEquals(data.map((d) => d.sequence_number), data.map((_, i) => i));
  assertEquals(out[0].event, "response.created");
  assertOk(out.some((f) => f.event === "response.content_part.added"));
  const completed = data.at(-1);
  assertEquals(completed.type, "response.completed");
  assertEquals(completed.response.output.map((item: { type: string }) => item.type), [
    "reasoning",
    "message",
    "function_call",
    "function_call",
  ]);
  assertEquals(completed.response.output[2].arguments, '{"a":1}');
  assertEquals(completed.response.usage.input_tokens_details.cached_tokens, 4);
});

Deno.test("gemini encoder: JSON-array framing, function calls whole, finish and usage last", () => {
  const encoder = new GeminiStreamEncoder("pub", "json-array");
  const text = events.map((event) => encoder.encode(event)).join("") + encoder.end();
  const chunks = JSON.parse(text);
  const calls = chunks.flatMap((
    c: { candidates: Array<{ content: { parts: Array<{ functionCall?: unknown }> } }> },
  ) => c.candidates[0].content.parts.filter((p) => p.functionCall));
  assertEquals(
    calls.map((
      p: { functionCall: { name: string; args: unknown } },
    ) => [p.functionCall.name, p.functionCall.args]),
    [["f", { a: 1 }], ["g", {}]],
  );
  assertEquals(chunks.at(-1).candidates[0].finishReason, "STOP");
  assertEquals(chunks.at(-1).usageMetadata, {
    promptTokenCount: 10,
    candidatesTokenCount: 5,
    totalTokenCount: 15,
    cachedContentTokenCount: 4,
  });
});

Deno.test("decoders: anthropic input fragments, usage merged from start and delta; chat usage on a chunk with choices, no [DONE] (litellm#36168)", () => {
  const anthropic = new AnthropicStreamDecoder();
  const feed = (type: string, data: unknown) =>
    anthropic.decode(type, JSON.stringify({ type, ...data as object }));
  feed("message_start", {
    message: {
      id: "m",
      model: "x",
      usage: { input_tokens: 3, cache_read_input_tokens: 7, output_tokens: 1 },
    },
  });
  feed("content_block_start", {
    index: 0,
    content_block: { type: "tool_use", id: "t", name: "f", input: {} },
  });
  const parts = [
    ...feed("content_block_delta", {
      index: 0,
      delta: { type: "input_json_delta", partial_json: '{"a":' },
    }),
    ...feed("content_block_delta", {
      index: 0,
      delta: { type: "input_json_delta", partial_json: "2}" },
    }),
  ];
  assertEquals(parts.map((p) => (p as { arguments: string }).arguments).join(""), '{"a":2}');
  const end = feed("message_delta", {
    delta: { stop_reason: "tool_use" },
    usage: { output_tokens: 9 },
  });
  assertEquals(end[0], { type: "stop", reason: "tool_calls" });
  assertEquals(anthropic.usage, { input_tokens: 10, cached_input_tokens: 7, output_tokens: 9 });
  feed("message_stop", {});
  assertEquals(anthropic.completed, true);

  const chat = new ChatStreamDecoder();
  chat.decode(
    undefined,
    JSON.stringify({
      id: "c",
      model: "x",
      choices: [{ delta: { content: "a" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 5, completion_tokens: 1 },
    }),
  );
  assertEquals(chat.completed, true);
  assertEquals(chat.usage?.input_tokens, 5);

  const gemini = new GeminiStreamDecoder();
  const calls = gemini.decode(
    undefined,
    JSON.stringify({
      candidates: [{
        content: { parts: [{ functionCall: { name: "f", args: {} } }] },
        finishReason: "STOP",
      }],
      usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 2, thoughtsTokenCount: 3 },
    }),
  );
  assertEquals(calls.find((e) => e.type === "stop"), { type: "stop", reason: "tool_calls" });
  assertEquals(gemini.usage, {
    input_tokens: 4,
    cached_input_tokens: 0,
    output_tokens: 5,
    reasoning_tokens: 3,
  });
});
