/**
 * Reasoning through every pair: what an upstream signed reaches a client of another format in
 * that format's place for it, and when the client replays its history the signature goes back to
 * an upstream of the same provider unchanged (text, signature, order), while other upstreams drop
 * it and name it.
 */

import { assertEquals } from "../../helpers/assert.ts";
import { CODECS } from "../../../core/formats/codecs.ts";
import type { NeutralEvent, NeutralResponse } from "../../../core/formats/neutral.ts";
import { decodeChatRequest } from "../../../core/formats/openai_chat/decode_request.ts";
import { decodeResponsesRequest } from "../../../core/formats/openai_responses/decode_request.ts";
import { decodeAnthropicRequest } from "../../../core/formats/anthropic/decode_request.ts";
import { decodeGeminiRequest } from "../../../core/formats/gemini/decode_request.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const TARGET = { model: "up", defaultMaxTokens: 32000 };

const anthropicAnswer = {
  id: "msg_1",
  model: "claude",
  content: [
    { type: "thinking", thinking: "Plan: call the tool.", signature: "EqQBSIGNED==" },
    { type: "redacted_thinking", data: "RkVEQUNURUQ=" },
    { type: "tool_use", id: "toolu_1", name: "write", input: { path: "a.txt" } },
  ],
  stop_reason: "tool_use",
  usage: { input_tokens: 10, output_tokens: 5 },
};

const geminiAnswer = {
  candidates: [{
    content: {
      role: "model",
      parts: [
        { text: "Thinking about files", thought: true },
        {
          functionCall: { name: "write", args: { path: "a.txt" } },
          thoughtSignature: "CiQBGEMINI=",
        },
      ],
    },
    finishReason: "STOP",
  }],
  usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5 },
};

const responsesAnswer = {
  id: "resp_1",
  status: "completed",
  output: [
    {
      id: "rs_1",
      type: "reasoning",
      summary: [{ type: "summary_text", text: "Plan it" }],
      encrypted_content: "gAAAAOPENAI",
    },
    { id: "fc_1", type: "function_call", call_id: "call_1", name: "write", arguments: "{}" },
  ],
  usage: { input_tokens: 10, output_tokens: 5 },
};

/** A responses client's next request: the output items replayed, then the tool's output. */
function responsesReplay(answer: NeutralResponse): Json {
  const output = CODECS["openai-responses"].encodeResponse(answer, "m").output;
  const call = output.find((item: Json) => item.type === "function_call");
  return {
    model: "m",
    input: [
      { role: "user", content: "write it" },
      ...output,
      { type: "function_call_output", call_id: call.call_id, output: "done" },
    ],
  };
}

/** An Anthropic client's next request: the assistant content replayed, then the tool result. */
function anthropicReplay(answer: NeutralResponse): Json {
  const content = CODECS.anthropic.encodeResponse(answer, "m").content;
  const call = content.find((block: Json) => block.type === "tool_use");
  return {
    model: "m",
    max_tokens: 32000,
    messages: [
      { role: "user", content: "write it" },
      { role: "assistant", content },
      { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: "done" }] },
    ],
  };
}

/** A Gemini client's next request. */
function geminiReplay(answer: NeutralResponse): Json {
  const parts = CODECS.gemini.encodeResponse(answer, "m").candidates[0].content.parts;
  return {
    contents: [
      { role: "user", parts: [{ text: "write it" }] },
      { role: "model", parts },
      {
        role: "user",
        parts: [{ functionResponse: { name: "write", response: { result: "done" } } }],
      },
    ],
  };
}

function assistantContent(body: Json): Json[] {
  return body.messages.find((message: Json) => message.role === "assistant").content;
}

Deno.test("anthropic thinking and redacted thinking round-trip through responses and Gemini clients", () => {
  const answer = CODECS.anthropic.decodeResponse(anthropicAnswer);
  const expected = [
    { type: "thinking", thinking: "Plan: call the tool.", signature: "EqQBSIGNED==" },
    { type: "redacted_thinking", data: "RkVEQUNURUQ=" },
    { type: "tool_use", id: "toolu_1", name: "write", input: { path: "a.txt" } },
  ];
  const viaResponses = CODECS.anthropic.encodeRequest(
    decodeResponsesRequest(responsesReplay(answer)),
    TARGET,
  );
  assertEquals(assistantContent(viaResponses.body), expected);
  assertEquals(viaResponses.ignored, []);
  const viaGemini = CODECS.anthropic.encodeRequest(
    decodeGeminiRequest(geminiReplay(answer), { model: "m", stream: false }),
    TARGET,
  );
  // Gemini's history has no call ids; the gateway's own stand in.
  assertEquals(assistantContent(viaGemini.body).slice(0, 2), expected.slice(0, 2));
  assertEquals(assistantContent(viaGemini.body)[2].type, "tool_use");
  assertEquals(viaGemini.ignored, []);
});

Deno.test("a Gemini call's thought signature goes back on that call, through Anthropic and responses clients", () => {
  const answer = CODECS.gemini.decodeResponse(geminiAnswer);
  const anthropicContent = CODECS.anthropic.encodeResponse(answer, "m").content;
  assertEquals(anthropicContent.map((block: Json) => block.type), [
    "thinking",
    "thinking",
    "tool_use",
  ]);
  for (
    const client of [
      decodeAnthropicRequest(anthropicReplay(answer)),
      decodeResponsesRequest(responsesReplay(answer)),
    ]
  ) {
    const { body, ignored } = CODECS.gemini.encodeRequest(client, TARGET);
    const model = body.contents.find((content: Json) => content.role === "model");
    // The unsigned thought summary cannot go back (Gemini takes only signed thoughts): named.
    assertEquals(model.parts, [{
      functionCall: { name: "write", args: { path: "a.txt" } },
      thoughtSignature: "CiQBGEMINI=",
    }]);
    assertEquals(ignored, ["reasoningHistory"]);
  }
});

Deno.test("OpenAI encrypted reasoning round-trips through Anthropic and Gemini clients, with include", () => {
  const answer = CODECS["openai-responses"].decodeResponse(responsesAnswer);
  for (
    const client of [
      decodeAnthropicRequest(anthropicReplay(answer)),
      decodeGeminiRequest(geminiReplay(answer), { model: "m", stream: false }),
    ]
  ) {
    const { body, ignored } = CODECS["openai-responses"].encodeRequest(client, TARGET);
    const reasoning = body.input.filter((item: Json) => item.type === "reasoning");
    assertEquals(reasoning, [{
      type: "reasoning",
      summary: [{ type: "summary_text", text: "Plan it" }],
      encrypted_content: "gAAAAOPENAI",
    }]);
    assertEquals(body.include, ["reasoning.encrypted_content"]);
    assertEquals(body.store, false);
    assertEquals(ignored, []);
  }
});

Deno.test("reasoning signed by another provider is dropped and named, never sent", () => {
  // A responses client's history from OpenAI itself (bare encrypted content), to Anthropic.
  const codex = decodeResponsesRequest({
    model: "m",
    input: [
      { role: "user", content: "hi" },
      { type: "reasoning", id: "rs_9", summary: [], encrypted_content: "gAAAABARE" },
      { type: "function_call", call_id: "c1", name: "write", arguments: "{}" },
      { type: "function_call_output", call_id: "c1", output: "ok" },
    ],
  });
  const toAnthropic = CODECS.anthropic.encodeRequest(codex, TARGET);
  assertEquals(assistantContent(toAnthropic.body).map((block: Json) => block.type), ["tool_use"]);
  assertEquals(toAnthropic.ignored.map((name) => codex.fieldOf[name] ?? name), [
    "input[type=reasoning]",
  ]);
  // Claude's own thinking (bare signature), to Gemini and to chat.
  const claude = decodeAnthropicRequest({
    model: "m",
    max_tokens: 100,
    messages: [
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: [{ type: "thinking", thinking: "t", signature: "EqQB" }, {
          type: "text",
          text: "hello",
        }],
      },
      { role: "user", content: "more" },
    ],
  });
  for (const to of ["gemini", "openai-chat", "openai-responses"] as const) {
    const { body, ignored } = CODECS[to].encodeRequest(claude, TARGET);
    assertEquals(JSON.stringify(body).includes("EqQB"), false, to);
    assertEquals(ignored.map((name) => claude.fieldOf[name] ?? name), [
      "messages[].content[type=thinking]",
    ], to);
  }
});

Deno.test("chat clients: reasoning text comes back as reasoning_content; replayed, it is named", () => {
  const answer = CODECS.anthropic.decodeResponse(anthropicAnswer);
  const message = CODECS["openai-chat"].encodeResponse(answer, "m").choices[0].message;
  assertEquals(message.reasoning_content, "Plan: call the tool.");
  const request = decodeChatRequest({
    model: "m",
    messages: [
      { role: "user", content: "hi" },
      { role: "assistant", content: "yes", reasoning_content: "thought" },
      { role: "user", content: "more" },
    ],
  });
  const { ignored } = CODECS.anthropic.encodeRequest(request, TARGET);
  assertEquals(ignored.map((name) => request.fieldOf[name] ?? name), [
    "messages[].reasoning_content",
  ]);
});

function streamThrough(
  from: "anthropic" | "gemini",
  to: "anthropic" | "openai-responses" | "gemini",
  frames: Array<[string | undefined, Json]>,
): string {
  const decoder = CODECS[from].streamDecoder();
  const encoder = CODECS[to].streamEncoder("m", { includeUsage: false, framing: "sse" });
  const events: NeutralEvent[] = frames.flatMap(([event, data]) =>
    decoder.decode(event, JSON.stringify(data))
  );
  return events.map((event) => encoder.encode(event)).join("") + encoder.end();
}

function dataOf(stream: string): Json[] {
  return stream.split("\n").filter((line) => line.startsWith("data: ")).map((line) =>
    JSON.parse(line.slice(6))
  );
}

Deno.test("streams: an Anthropic signature reaches a responses client's reasoning item", () => {
  const out = dataOf(streamThrough("anthropic", "openai-responses", [
    ["message_start", {
      type: "message_start",
      message: { id: "msg_1", model: "c", usage: { input_tokens: 3 } },
    }],
    ["content_block_start", {
      type: "content_block_start",
      index: 0,
      content_block: { type: "thinking", thinking: "" },
    }],
    ["content_block_delta", {
      type: "content_block_delta",
      index: 0,
      delta: { type: "thinking_delta", thinking: "Hmm" },
    }],
    ["content_block_delta", {
      type: "content_block_delta",
      index: 0,
      delta: { type: "signature_delta", signature: "EqQB" },
    }],
    ["content_block_start", {
      type: "content_block_start",
      index: 1,
      content_block: { type: "redacted_thinking", data: "UkVE" },
    }],
    ["message_delta", {
      type: "message_delta",
      delta: { stop_reason: "end_turn" },
      usage: { output_tokens: 2 },
    }],
    ["message_stop", { type: "message_stop" }],
  ]));
  const done = out.filter((data) => data.type === "response.output_item.done")
    .map((data) => data.item);
  assertEquals(done.map((item) => [item.type, item.encrypted_content]), [
    ["reasoning", "gwsig1ANEqQB"],
    ["reasoning", "gwsig1ARUkVE"],
  ]);
  assertEquals(done[0].summary, [{ type: "summary_text", text: "Hmm" }]);
});

Deno.test("streams: a Gemini call signature reaches an Anthropic client as a signed block before the call", () => {
  const out = dataOf(streamThrough("gemini", "anthropic", [
    [undefined, geminiAnswer],
  ]));
  const blocks = out.filter((data) => data.type === "content_block_start")
    .map((data) => data.content_block.type);
  assertEquals(blocks, ["thinking", "thinking", "tool_use"]);
  const signatures = out.filter((data) => data.delta?.type === "signature_delta")
    .map((data) => [data.index, data.delta.signature]);
  assertEquals(signatures, [[1, "gwsig1GECiQBGEMINI="]]);
});

Deno.test("streams: Anthropic thinking streamed to a Gemini client goes back whole with its signature", () => {
  const stream = streamThrough("anthropic", "gemini", [
    ["message_start", {
      type: "message_start",
      message: { id: "msg_1", model: "c", usage: { input_tokens: 3 } },
    }],
    ["content_block_start", {
      type: "content_block_start",
      index: 0,
      content_block: { type: "thinking", thinking: "" },
    }],
    ["content_block_delta", {
      type: "content_block_delta",
      index: 0,
      delta: { type: "thinking_delta", thinking: "Let me " },
    }],
    ["content_block_delta", {
      type: "content_block_delta",
      index: 0,
      delta: { type: "thinking_delta", thinking: "see." },
    }],
    ["content_block_delta", {
      type: "content_block_delta",
      index: 0,
      delta: { type: "signature_delta", signature: "EqQB" },
    }],
    ["content_block_start", {
      type: "content_block_start",
      index: 1,
      content_block: { type: "text", text: "" },
    }],
    ["content_block_delta", {
      type: "content_block_delta",
      index: 1,
      delta: { type: "text_delta", text: "Done." },
    }],
    ["message_delta", {
      type: "message_delta",
      delta: { stop_reason: "end_turn" },
      usage: { output_tokens: 2 },
    }],
    ["message_stop", { type: "message_stop" }],
  ]);
  // The Gemini client keeps every part of every chunk, in order, as its history.
  const parts = dataOf(stream.replaceAll("\r\n", "\n")).flatMap((chunk) =>
    chunk.candidates?.[0]?.content?.parts ?? []
  );
  const request = decodeGeminiRequest({
    contents: [
      { role: "user", parts: [{ text: "q" }] },
      { role: "model", parts },
      { role: "user", parts: [{ text: "more" }] },
    ],
  }, { model: "m", stream: false });
  const { body, ignored } = CODECS.anthropic.encodeRequest(request, TARGET);
  assertEquals(assistantContent(body), [
    { type: "thinking", thinking: "Let me see.", signature: "EqQB" },
    { type: "text", text: "Done." },
  ]);
  assertEquals(ignored, []);
});
