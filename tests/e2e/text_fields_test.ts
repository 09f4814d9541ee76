/**
 * Fields with an equivalent are carried through converted channels and reasoning goes back to the
 * provider that signed it: the official SDKs (openai, @anthropic-ai/sdk, @google/genai) against
 * every text channel type, checking what each simulator received and what the client got. Cached
 * input billing: text_cached_billing_test.ts.
 */

import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI, type Part } from "@google/genai";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import {
  CHANNEL_TYPES,
  MODEL_OF,
  setupText,
  type TextChannelType,
  type TextSetup,
  WEATHER_SCHEMA,
} from "../helpers/text_setup.ts";
import { anthropicSignature } from "../upstream/anthropic.ts";
import { ENCRYPTED_PREFIX } from "../upstream/openai_responses.ts";
import { GEMINI_THOUGHT_SIGNATURE, geminiCallSignature } from "../upstream/gemini.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const CITY_SCHEMA = {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
  additionalProperties: false,
};

const SKIP_SIGNATURE = "skip_thought_signature_validator";

function openai(s: TextSetup): OpenAI {
  return new OpenAI({ apiKey: s.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
}

function anthropic(s: TextSetup): Anthropic {
  return new Anthropic({ apiKey: s.key, baseURL: s.gw.url, maxRetries: 0 });
}

function genai(s: TextSetup): GoogleGenAI {
  return new GoogleGenAI({ apiKey: s.key, httpOptions: { baseUrl: s.gw.url } });
}

function ignoredOf(response: Response): string | null {
  return response.headers.get("x-gateway-ignored-fields");
}

/** The last assistant turn of an upstream body, in that upstream's own shape. */
function lastAssistantTurn(s: TextSetup, type: TextChannelType): Json {
  const body: Json = s.lastBody(type);
  switch (type) {
    case "openai":
      return body.messages.findLast((message: Json) => message.role === "assistant");
    case "openai-responses":
      return body.input.filter((item: Json) =>
        item.type === "reasoning" || item.type === "function_call"
      );
    case "anthropic":
      return body.messages.findLast((message: Json) => message.role === "assistant").content;
    case "gemini":
      return body.contents.findLast((content: Json) => content.role === "model").parts;
  }
}

Deno.test(
  "chat client: prompt_cache_key and a strict json_schema carried, named where none exists",
  serverTest,
  async () => {
    await using s = await setupText();
    const client = openai(s);
    const expected: Record<
      TextChannelType,
      { check: (body: Json) => void; ignored: string | null }
    > = {
      openai: {
        check: (body) => assertEquals(body.prompt_cache_key, "thread-1"),
        ignored: null,
      },
      "openai-responses": {
        check: (body) => {
          assertEquals(body.prompt_cache_key, "thread-1");
          assertEquals(body.text, {
            format: { type: "json_schema", name: "city", schema: CITY_SCHEMA, strict: true },
          });
        },
        ignored: null,
      },
      anthropic: {
        check: (body) =>
          assertEquals(body.output_config, {
            format: { type: "json_schema", schema: CITY_SCHEMA },
          }),
        ignored: "prompt_cache_key",
      },
      gemini: {
        check: (body) => {
          assertEquals(body.generationConfig.responseMimeType, "application/json");
          assertEquals(body.generationConfig.responseJsonSchema, CITY_SCHEMA);
        },
        ignored: "prompt_cache_key",
      },
    };
    for (const type of CHANNEL_TYPES) {
      const { data, response } = await client.chat.completions.create({
        model: MODEL_OF[type],
        messages: [{ role: "user", content: "Which city?" }],
        prompt_cache_key: "thread-1",
        response_format: {
          type: "json_schema",
          json_schema: { name: "city", schema: CITY_SCHEMA, strict: true },
        },
      }).withResponse();
      assertEquals(data.choices[0].message.content, "Echo: Which city?", type);
      expected[type].check(s.lastBody(type));
      assertEquals(ignoredOf(response), expected[type].ignored, type);
    }
  },
);

Deno.test(
  "anthropic client (as Claude Code): thinking + tools in two streamed turns, signatures back to their signer",
  serverTest,
  async () => {
    await using s = await setupText();
    const client = anthropic(s);
    const tools = [
      { name: "get_weather", description: "Weather", input_schema: WEATHER_SCHEMA },
      { name: "get_time", description: "Time", input_schema: WEATHER_SCHEMA },
    ];
    for (const type of CHANNEL_TYPES) {
      const model = MODEL_OF[type];
      const common = {
        model,
        max_tokens: 4096,
        thinking: { type: "enabled" as const, budget_tokens: 2048 },
        output_config: { format: { type: "json_schema" as const, schema: CITY_SCHEMA } },
        tools,
      };
      const question = { role: "user" as const, content: "weather?" };
      const first = await client.messages.stream({ ...common, messages: [question] })
        .finalMessage();
      assertEquals(first.stop_reason, "tool_use", type);
      const thinking = first.content.filter((block) => block.type === "thinking");
      assertOk(thinking.length > 0, `${type}: thinking surfaced`);
      assertEquals(thinking[0].thinking, "Considering: weather?", type);
      const uses = first.content.filter((block) => block.type === "tool_use");
      const { data, response } = await client.messages.create({
        ...common,
        messages: [
          question,
          { role: "assistant", content: first.content },
          {
            role: "user",
            content: uses.map((use) => ({
              type: "tool_result" as const,
              tool_use_id: use.id,
              content: "sunny",
            })),
          },
        ],
      }).withResponse();
      assertEquals(data.stop_reason, "end_turn", type);
      const turn = lastAssistantTurn(s, type);
      switch (type) {
        case "openai":
          // Chat completions has no place for thinking: named, not sent.
          assertEquals(Object.keys(turn).includes("reasoning_content"), false);
          assertEquals(s.lastBody(type).reasoning_effort, "low");
          assertEquals(ignoredOf(response), "messages[].content[type=thinking]");
          break;
        case "openai-responses":
          assertEquals(turn.map((item: Json) => item.type), [
            "reasoning",
            "function_call",
            "function_call",
          ]);
          assertOk(turn[0].encrypted_content.startsWith(ENCRYPTED_PREFIX), "OpenAI's own content");
          assertEquals(s.lastBody(type).include, ["reasoning.encrypted_content"]);
          assertEquals(ignoredOf(response), null);
          break;
        case "anthropic":
          assertEquals(turn[0], {
            type: "thinking",
            thinking: "Considering: weather?",
            signature: anthropicSignature("Considering: weather?"),
          });
          assertEquals(ignoredOf(response), null);
          break;
        case "gemini":
          assertEquals(turn, [
            {
              text: "Considering: weather?",
              thought: true,
              thoughtSignature: GEMINI_THOUGHT_SIGNATURE,
            },
            {
              functionCall: {
                name: "get_weather",
                args: { city: "City 0", unit: "celsius", index: 0 },
              },
              thoughtSignature: geminiCallSignature("get_weather"),
            },
            {
              functionCall: {
                name: "get_time",
                args: { city: "City 1", unit: "celsius", index: 1 },
              },
              thoughtSignature: SKIP_SIGNATURE,
            },
          ]);
          assertEquals(ignoredOf(response), null);
          break;
      }
    }
  },
);

Deno.test(
  "responses client (as Codex): store false, encrypted reasoning, prompt_cache_key, two streamed turns",
  serverTest,
  async () => {
    await using s = await setupText();
    const client = openai(s);
    const tools = [
      { type: "function" as const, name: "get_weather", parameters: WEATHER_SCHEMA, strict: false },
      { type: "function" as const, name: "get_time", parameters: WEATHER_SCHEMA, strict: false },
    ];
    for (const type of CHANNEL_TYPES) {
      const common = {
        model: MODEL_OF[type],
        store: false,
        include: ["reasoning.encrypted_content" as const],
        reasoning: { effort: "low" as const, summary: "auto" as const },
        prompt_cache_key: "codex-session-1",
        tools,
      };
      const question = { role: "user" as const, content: "weather?" };
      const first = await client.responses.stream({ ...common, input: [question] }).finalResponse();
      const reasoning = first.output.filter((item) => item.type === "reasoning");
      assertEquals(reasoning[0]?.summary[0]?.text, "Considering: weather?", type);
      if (type !== "openai") assertOk(reasoning[0].encrypted_content, `${type}: replayable`);
      const calls = first.output.filter((item) => item.type === "function_call");
      assertEquals(calls.map((call) => call.name), ["get_weather", "get_time"], type);
      const { data, response } = await client.responses.create({
        ...common,
        input: [
          question,
          ...first.output as Json[],
          ...calls.map((call) => ({
            type: "function_call_output" as const,
            call_id: call.call_id,
            output: "sunny",
          })),
        ],
      }).withResponse();
      assertEquals(data.status, "completed", type);
      const upstream: Json = s.lastBody(type);
      const turn = lastAssistantTurn(s, type);
      switch (type) {
        case "openai":
          assertEquals(upstream.prompt_cache_key, "codex-session-1");
          assertEquals(upstream.reasoning_effort, "low");
          // Chat completions cannot return encrypted reasoning nor take it back.
          assertEquals(ignoredOf(response), "include,input[type=reasoning]");
          break;
        case "openai-responses":
          assertEquals(upstream.prompt_cache_key, "codex-session-1");
          assertOk(turn[0].encrypted_content.startsWith(ENCRYPTED_PREFIX));
          assertEquals(ignoredOf(response), null);
          break;
        case "anthropic":
          assertEquals(turn.map((block: Json) => block.type), ["thinking", "tool_use", "tool_use"]);
          assertEquals(turn[0].signature, anthropicSignature("Considering: weather?"));
          // Effort "low" is a 2,048-token budget, fitted under the model's 2,048 max_tokens.
          assertEquals(upstream.thinking, { type: "enabled", budget_tokens: 2047 });
          assertEquals(ignoredOf(response), "prompt_cache_key");
          break;
        case "gemini":
          assertEquals(turn[0].thoughtSignature, GEMINI_THOUGHT_SIGNATURE);
          assertEquals(turn[1].thoughtSignature, geminiCallSignature("get_weather"));
          assertEquals(ignoredOf(response), "prompt_cache_key");
          break;
      }
    }
  },
);

Deno.test(
  "responses history from another provider is dropped and named, never sent to the wrong one",
  serverTest,
  async () => {
    await using s = await setupText();
    const client = openai(s);
    // Encrypted reasoning OpenAI itself gave (no gateway label), replayed to an Anthropic channel.
    const { data, response } = await client.responses.create({
      model: MODEL_OF.anthropic,
      store: false,
      input: [
        { role: "user", content: "weather?" },
        { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "gAAAAB_openai_own" },
        { type: "function_call", call_id: "call_1", name: "get_weather", arguments: "{}" },
        { type: "function_call_output", call_id: "call_1", output: "sunny" },
      ],
      reasoning: { effort: "medium" },
      tools: [{ type: "function", name: "get_weather", parameters: WEATHER_SCHEMA, strict: false }],
    }).withResponse();
    assertEquals(data.status, "completed");
    const turn = lastAssistantTurn(s, "anthropic");
    assertEquals(turn.map((block: Json) => block.type), ["tool_use"]);
    // Without its thinking, the tool turn cannot be continued with thinking on: named too.
    assertEquals(s.lastBody("anthropic").thinking, undefined);
    assertEquals(ignoredOf(response), "input[type=reasoning],reasoning");
  },
);

Deno.test(
  "a model switch mid-conversation: another provider's thinking never reaches Anthropic on a pass-through",
  serverTest,
  async () => {
    await using s = await setupText();
    const client = anthropic(s);
    const tools = [{ name: "get_weather", description: "Weather", input_schema: WEATHER_SCHEMA }];
    const thinking = { type: "enabled" as const, budget_tokens: 2048 };
    const question = { role: "user" as const, content: "weather?" };
    // The first turn on a Gemini model: its signed thoughts reach the client as thinking blocks.
    const first = await client.messages.create({
      model: MODEL_OF.gemini,
      max_tokens: 4096,
      thinking,
      tools,
      messages: [question],
    });
    const use = first.content.find((block) => block.type === "tool_use")!;
    // The client switches to a Claude model and replays its history (a pass-through).
    const { data, response } = await client.messages.create({
      model: MODEL_OF.anthropic,
      max_tokens: 4096,
      thinking,
      tools,
      messages: [
        question,
        { role: "assistant", content: first.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "sunny" }] },
      ],
    }).withResponse();
    assertEquals(data.stop_reason, "end_turn");
    assertEquals(lastAssistantTurn(s, "anthropic").map((block: Json) => block.type), ["tool_use"]);
    assertEquals(s.lastBody("anthropic").thinking, undefined);
    assertEquals(ignoredOf(response), "messages[].content[type=thinking],thinking");
  },
);

Deno.test(
  "gemini client: thoughts and a responseJsonSchema through other channels, signatures back",
  serverTest,
  async () => {
    await using s = await setupText();
    const ai = genai(s);
    const tools = [{
      functionDeclarations: [
        { name: "get_weather", description: "Weather", parametersJsonSchema: WEATHER_SCHEMA },
        { name: "get_time", description: "Time", parametersJsonSchema: WEATHER_SCHEMA },
      ],
    }];
    const config = { tools, thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 } };
    for (const type of ["openai-responses", "anthropic"] as const) {
      const model = MODEL_OF[type];
      const question = { role: "user", parts: [{ text: "weather?" }] };
      const first = await ai.models.generateContent({ model, contents: [question], config });
      const parts: Part[] = first.candidates![0].content!.parts!;
      assertEquals(parts[0].thought, true, type);
      assertEquals(parts[0].text, "Considering: weather?", type);
      assertOk(parts[0].thoughtSignature, `${type}: the signature reaches the client`);
      const calls = parts.filter((part) => part.functionCall);
      await ai.models.generateContent({
        model,
        contents: [
          question,
          { role: "model", parts },
          {
            role: "user",
            parts: calls.map((part) => ({
              functionResponse: { name: part.functionCall!.name, response: { result: "sunny" } },
            })),
          },
        ],
        config,
      });
      const turn = lastAssistantTurn(s, type);
      if (type === "anthropic") {
        assertEquals(turn[0].signature, anthropicSignature("Considering: weather?"));
      } else {
        assertOk(turn[0].encrypted_content.startsWith(ENCRYPTED_PREFIX));
      }
      const structured = await ai.models.generateContent({
        model,
        contents: "Which city?",
        config: { responseMimeType: "application/json", responseJsonSchema: CITY_SCHEMA },
      });
      assertEquals(structured.text, "Echo: Which city?");
      const body: Json = s.lastBody(type);
      if (type === "anthropic") {
        assertEquals(body.output_config, { format: { type: "json_schema", schema: CITY_SCHEMA } });
      } else {
        assertEquals(body.text.format, {
          type: "json_schema",
          name: "response",
          schema: CITY_SCHEMA,
        });
      }
    }
  },
);

Deno.test(
  "messages: role system inside messages, with the mid-conversation-system beta, on every channel",
  serverTest,
  async () => {
    await using s = await setupText();
    const client = new Anthropic({
      apiKey: s.key,
      baseURL: s.gw.url,
      maxRetries: 0,
      defaultHeaders: { "anthropic-beta": "mid-conversation-system-2026-04-07" },
    });
    for (const type of CHANNEL_TYPES) {
      const answer = await client.messages.create({
        model: MODEL_OF[type],
        max_tokens: 256,
        messages: [
          { role: "user", content: "hello" },
          { role: "system", content: "Agents: none." } as unknown as Anthropic.MessageParam,
        ],
      });
      assertOk(answer.content.length > 0, type);
      const body: Json = s.lastBody(type);
      const system = {
        openai: () => body.messages[0],
        "openai-responses": () => body.instructions,
        anthropic: () => body.messages[1],
        gemini: () => body.systemInstruction.parts[0].text,
      }[type]();
      assertEquals(
        system,
        {
          openai: { role: "system", content: "Agents: none." },
          "openai-responses": "Agents: none.",
          anthropic: { role: "system", content: "Agents: none." },
          gemini: "Agents: none.",
        }[type],
        type,
      );
    }
  },
);
