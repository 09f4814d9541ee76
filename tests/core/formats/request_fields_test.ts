/**
 * Fields with an equivalent in another format are carried, not dropped: prompt-cache keys,
 * structured output and reasoning effort, through every converted pair of formats. What has no
 * equivalent is named (as `x-gateway-ignored-fields` names it: the client's own field).
 */

import { assertEquals } from "../../helpers/assert.ts";
import { CODECS } from "../../../core/formats/codecs.ts";
import type { InboundFormat, NeutralRequest, TextFormat } from "../../../core/formats/neutral.ts";
import { decodeChatRequest } from "../../../core/formats/openai_chat/decode_request.ts";
import { decodeResponsesRequest } from "../../../core/formats/openai_responses/decode_request.ts";
import { decodeAnthropicRequest } from "../../../core/formats/anthropic/decode_request.ts";
import { decodeGeminiRequest } from "../../../core/formats/gemini/decode_request.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const DECODE: Record<InboundFormat, (body: Json) => NeutralRequest> = {
  "openai-chat": decodeChatRequest,
  "openai-responses": decodeResponsesRequest,
  anthropic: decodeAnthropicRequest,
  gemini: (body) => decodeGeminiRequest(body, { model: "m", stream: false }),
};

/** The upstream body and the client fields named ignored, as core/text/text_attempt.ts does. */
function convert(
  from: InboundFormat,
  body: Json,
  to: TextFormat,
): { body: Json; ignored: string[] } {
  const neutral = DECODE[from](body);
  const out = CODECS[to].encodeRequest(neutral, { model: "up", defaultMaxTokens: 32000 });
  return {
    body: out.body,
    ignored: [...out.ignored.map((name) => neutral.fieldOf[name] ?? name), ...neutral.unmapped],
  };
}

const user = [{ role: "user", content: "hi" }];
const chat = (fields: Json) => ({ model: "m", messages: user, ...fields });
const responses = (fields: Json) => ({ model: "m", input: "hi", ...fields });
const anthropic = (fields: Json) => ({ model: "m", max_tokens: 32000, messages: user, ...fields });
const gemini = (config: Json, fields: Json = {}) => ({
  contents: [{ role: "user", parts: [{ text: "hi" }] }],
  generationConfig: config,
  ...fields,
});

Deno.test("prompt_cache_key and its retention: carried between chat and responses, named elsewhere", () => {
  const fields = { prompt_cache_key: "thread-7", prompt_cache_retention: "24h" };
  const toResponses = convert("openai-chat", chat(fields), "openai-responses");
  assertEquals(
    [toResponses.body.prompt_cache_key, toResponses.body.prompt_cache_retention],
    ["thread-7", "24h"],
  );
  assertEquals(toResponses.ignored, []);
  const toChat = convert("openai-responses", responses(fields), "openai-chat");
  assertEquals([toChat.body.prompt_cache_key, toChat.body.prompt_cache_retention], [
    "thread-7",
    "24h",
  ]);
  assertEquals(toChat.ignored, []);
  for (const to of ["anthropic", "gemini"] as const) {
    const out = convert("openai-responses", responses(fields), to);
    assertEquals(out.body.prompt_cache_key, undefined);
    assertEquals(out.ignored, ["prompt_cache_key", "prompt_cache_retention"]);
  }
});

const schema = {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
  additionalProperties: false,
};

Deno.test("structured output: Anthropic output_config.format reaches every other format", () => {
  const body = anthropic({ output_config: { format: { type: "json_schema", schema } } });
  assertEquals(convert("anthropic", body, "openai-chat").body.response_format, {
    type: "json_schema",
    json_schema: { name: "response", schema },
  });
  assertEquals(convert("anthropic", body, "openai-responses").body.text, {
    format: { type: "json_schema", name: "response", schema },
  });
  const toGemini = convert("anthropic", body, "gemini");
  assertEquals(toGemini.body.generationConfig, {
    maxOutputTokens: 32000,
    responseMimeType: "application/json",
    responseJsonSchema: schema,
  });
  assertEquals(toGemini.ignored, []);
  // The older beta spelling, top-level `output_format`, is read too.
  const beta = anthropic({ output_format: { type: "json_schema", schema } });
  assertEquals(
    convert("anthropic", beta, "openai-chat").body.response_format.json_schema.schema,
    schema,
  );
});

Deno.test("structured output: chat, responses and Gemini schemas reach Anthropic's output_config", () => {
  const sources: Array<[InboundFormat, Json]> = [
    [
      "openai-chat",
      chat({
        response_format: { type: "json_schema", json_schema: { name: "c", schema, strict: true } },
      }),
    ],
    [
      "openai-responses",
      responses({ text: { format: { type: "json_schema", name: "c", schema, strict: true } } }),
    ],
    ["gemini", gemini({ responseMimeType: "application/json", responseJsonSchema: schema })],
  ];
  for (const [from, body] of sources) {
    const out = convert(from, body, "anthropic");
    assertEquals(out.body.output_config, { format: { type: "json_schema", schema } }, from);
    assertEquals(out.ignored, [], from);
  }
});

Deno.test("structured output: name and strict carried between chat and responses", () => {
  const chatFormat = { type: "json_schema", json_schema: { name: "city", schema, strict: true } };
  assertEquals(
    convert("openai-chat", chat({ response_format: chatFormat }), "openai-responses").body.text,
    { format: { type: "json_schema", name: "city", schema, strict: true } },
  );
  const textFormat = { type: "json_schema", name: "city", schema, strict: false };
  assertEquals(
    convert("openai-responses", responses({ text: { format: textFormat } }), "openai-chat").body
      .response_format,
    { type: "json_schema", json_schema: { name: "city", schema, strict: false } },
  );
});

Deno.test("structured output: json_object where the format has it, named where it has not", () => {
  const body = chat({ response_format: { type: "json_object" } });
  assertEquals(convert("openai-chat", body, "openai-responses").body.text, {
    format: { type: "json_object" },
  });
  assertEquals(convert("openai-chat", body, "gemini").body.generationConfig, {
    responseMimeType: "application/json",
  });
  const gem = convert("gemini", gemini({ responseMimeType: "application/json" }), "openai-chat");
  assertEquals(gem.body.response_format, { type: "json_object" });
  const toAnthropic = convert("openai-chat", body, "anthropic");
  assertEquals(toAnthropic.body.output_config, undefined);
  assertEquals(toAnthropic.ignored, ["response_format"]);
});

Deno.test("reasoning effort: chat and responses levels reach Anthropic, Gemini and each other", () => {
  const fromChat = (effort: string, to: TextFormat) =>
    convert("openai-chat", chat({ reasoning_effort: effort }), to).body;
  assertEquals(fromChat("high", "openai-responses").reasoning, { effort: "high", summary: "auto" });
  assertEquals(fromChat("low", "anthropic").thinking, { type: "enabled", budget_tokens: 2048 });
  assertEquals(fromChat("high", "gemini").generationConfig.thinkingConfig, {
    thinkingBudget: 24576,
    includeThoughts: true,
  });
  // "none" is honoured by leaving thinking off, not named as dropped.
  const none = convert("openai-chat", chat({ reasoning_effort: "none" }), "anthropic");
  assertEquals([none.body.thinking, none.ignored], [undefined, []]);
  const fromResponses = convert(
    "openai-responses",
    responses({ reasoning: { effort: "minimal", summary: "detailed" } }),
    "openai-chat",
  );
  assertEquals(fromResponses.body.reasoning_effort, "minimal");
  const summary = convert(
    "openai-responses",
    responses({ reasoning: { effort: "medium", summary: "concise" } }),
    "gemini",
  );
  assertEquals(summary.body.generationConfig.thinkingConfig, {
    thinkingBudget: 8192,
    includeThoughts: true,
  });
});

Deno.test("reasoning effort: Anthropic budgets, adaptive thinking and output_config.effort", () => {
  const budget = anthropic({ thinking: { type: "enabled", budget_tokens: 3000 } });
  assertEquals(convert("anthropic", budget, "openai-chat").body.reasoning_effort, "medium");
  assertEquals(convert("anthropic", budget, "gemini").body.generationConfig.thinkingConfig, {
    thinkingBudget: 3000,
    includeThoughts: true,
  });
  const adaptive = anthropic({ thinking: { type: "adaptive" } });
  // The model's own choice: OpenAI formats get their default, Gemini its dynamic budget.
  assertEquals(convert("anthropic", adaptive, "openai-chat").body.reasoning_effort, undefined);
  assertEquals(convert("anthropic", adaptive, "openai-responses").body.reasoning, {
    summary: "auto",
  });
  assertEquals(convert("anthropic", adaptive, "gemini").body.generationConfig.thinkingConfig, {
    thinkingBudget: -1,
    includeThoughts: true,
  });
  const effort = anthropic({ thinking: { type: "adaptive" }, output_config: { effort: "max" } });
  assertEquals(convert("anthropic", effort, "openai-chat").body.reasoning_effort, "xhigh");
  const out = convert("anthropic", effort, "openai-responses");
  assertEquals(out.body.reasoning, { effort: "xhigh", summary: "auto" });
  assertEquals(out.body.include, ["reasoning.encrypted_content"]);
  assertEquals(out.ignored, []);
  const omitted = anthropic({
    thinking: { type: "enabled", budget_tokens: 2048, display: "omitted" },
  });
  // Anthropic's 2,048-token budget is what effort "low" asks of it: low both ways.
  assertEquals(convert("anthropic", omitted, "openai-responses").body.reasoning, {
    effort: "low",
  });
});

Deno.test("reasoning effort: into Anthropic, every level and the model's own choice is a budget", () => {
  // Every Claude model that thinks takes a budget; adaptive thinking only the newest.
  const fromGemini = convert(
    "gemini",
    gemini({ thinkingConfig: { thinkingBudget: -1, thinkingLevel: "HIGH" } }),
    "anthropic",
  );
  assertEquals(fromGemini.body.thinking, { type: "enabled", budget_tokens: 16384 });
  assertEquals(fromGemini.body.output_config, undefined);
  const dynamic = convert(
    "gemini",
    gemini({ thinkingConfig: { thinkingBudget: -1 } }),
    "anthropic",
  );
  assertEquals(dynamic.body.thinking, { type: "enabled", budget_tokens: 8192 });
  const hidden = convert(
    "gemini",
    gemini({
      maxOutputTokens: 8000,
      thinkingConfig: { thinkingLevel: "low", includeThoughts: false },
    }),
    "anthropic",
  );
  assertEquals(hidden.body.thinking, { type: "enabled", budget_tokens: 2048, display: "omitted" });
  // Too little room for the smallest budget: named, not sent.
  const cramped = convert(
    "openai-chat",
    chat({ reasoning_effort: "high", max_tokens: 500 }),
    "anthropic",
  );
  assertEquals([cramped.body.thinking, cramped.ignored], [undefined, ["reasoning_effort"]]);
});

Deno.test("reasoning effort: Gemini thinkingConfig reaches the OpenAI formats", () => {
  const level = gemini({ thinkingConfig: { thinkingLevel: "LOW", includeThoughts: false } });
  assertEquals(convert("gemini", level, "openai-chat").body.reasoning_effort, "low");
  assertEquals(convert("gemini", level, "openai-responses").body.reasoning, { effort: "low" });
  const budget = gemini({ thinkingConfig: { thinkingBudget: 10000, includeThoughts: true } });
  assertEquals(convert("gemini", budget, "openai-responses").body.reasoning, {
    effort: "high",
    summary: "auto",
  });
  // A budget of 0 turns thinking off: nothing to carry.
  const off = convert("gemini", gemini({ thinkingConfig: { thinkingBudget: 0 } }), "openai-chat");
  assertEquals([off.body.reasoning_effort, off.ignored], [undefined, []]);
});

Deno.test("responses include and text fields: encrypted reasoning honoured where signatures come back", () => {
  const body = responses({
    store: false,
    include: ["reasoning.encrypted_content", "message.output_text.logprobs"],
    text: { verbosity: "low" },
  });
  assertEquals(convert("openai-responses", body, "anthropic").ignored, [
    "text.verbosity",
    "include[message.output_text.logprobs]",
  ]);
  const toChat = convert("openai-responses", body, "openai-chat");
  assertEquals(toChat.ignored, ["include", "include[message.output_text.logprobs]"]);
  assertEquals(toChat.body.verbosity, "low");
});

Deno.test("anthropic output_config fields without an equivalent are named", () => {
  const body = anthropic({ output_config: { task_budget: { type: "tokens", total: 1000 } } });
  assertEquals(convert("anthropic", body, "openai-chat").ignored, ["output_config.task_budget"]);
});

Deno.test("verbosity, service_tier and safety_identifier: carried between chat and responses", () => {
  const toResponses = convert(
    "openai-chat",
    chat({ verbosity: "high", service_tier: "flex", safety_identifier: "u-1" }),
    "openai-responses",
  );
  assertEquals(
    [toResponses.body.text, toResponses.body.service_tier, toResponses.body.user],
    [{ verbosity: "high" }, "flex", "u-1"],
  );
  assertEquals(toResponses.ignored, []);
  const toAnthropic = convert(
    "openai-chat",
    chat({ verbosity: "high", service_tier: "flex" }),
    "anthropic",
  );
  assertEquals(toAnthropic.ignored, ["verbosity", "service_tier"]);
});

Deno.test("anthropic system messages inside the conversation (a beta) join the system text", () => {
  const body = anthropic({
    system: "Top.",
    messages: [
      { role: "user", content: "hi" },
      { role: "system", content: [{ type: "text", text: "Agents: none." }] },
      { role: "user", content: "go" },
    ],
  });
  const out = convert("anthropic", body, "openai-chat");
  assertEquals(out.body.messages, [
    { role: "system", content: "Top." },
    { role: "system", content: "Agents: none." },
    { role: "user", content: "higo" },
  ]);
  assertEquals(out.ignored, []);
});

Deno.test("a function tool's strict: carried to chat, responses and anthropic, named for gemini", () => {
  const parameters = { type: "object", properties: { city: { type: "string" } } };
  const inbound: [InboundFormat, Json, string][] = [
    [
      "openai-chat",
      chat({ tools: [{ type: "function", function: { name: "w", parameters, strict: true } }] }),
      "tools[].function.strict",
    ],
    [
      "openai-responses",
      responses({ tools: [{ type: "function", name: "w", parameters, strict: true }] }),
      "tools[].strict",
    ],
    [
      "anthropic",
      anthropic({ tools: [{ name: "w", input_schema: parameters, strict: true }] }),
      "tools[].strict",
    ],
  ];
  const strictOf: Record<Exclude<InboundFormat, "gemini">, (body: Json) => unknown> = {
    "openai-chat": (body) => body.tools[0].function.strict,
    "openai-responses": (body) => body.tools[0].strict,
    anthropic: (body) => body.tools[0].strict,
  };
  for (const [from, body, field] of inbound) {
    for (const to of ["openai-chat", "openai-responses", "anthropic"] as const) {
      if (to === from) continue;
      const out = convert(from, body, to);
      assertEquals([strictOf[to](out.body), out.ignored], [true, []], `${from} → ${to}`);
    }
    const toGemini = convert(from, body, "gemini");
    assertEquals(toGemini.body.tools[0].functionDeclarations[0].strict, undefined);
    assertEquals(toGemini.ignored, [field], `${from} → gemini`);
  }
});

Deno.test("a tool's strict false or left out: carried as declared, nothing named for gemini", () => {
  const tools = [
    { type: "function", function: { name: "a", parameters: {}, strict: false } },
    { type: "function", function: { name: "b", parameters: {} } },
  ];
  const toResponses = convert("openai-chat", chat({ tools }), "openai-responses");
  assertEquals(toResponses.body.tools.map((tool: Json) => tool.strict), [false, undefined]);
  assertEquals("strict" in toResponses.body.tools[1], false);
  const toAnthropic = convert("openai-chat", chat({ tools }), "anthropic");
  assertEquals(toAnthropic.body.tools.map((tool: Json) => tool.strict), [false, undefined]);
  assertEquals(convert("openai-chat", chat({ tools }), "gemini").ignored, []);
});

Deno.test("a responses custom tool carries no strict (the format has none for it)", () => {
  const tools = [{ type: "custom", name: "patch", strict: true }];
  const out = convert("openai-responses", responses({ tools }), "openai-chat");
  assertEquals("strict" in out.body.tools[0].function, false);
});
