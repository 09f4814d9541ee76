/** The peers' known failures (reference/peers.md), each as a named test we must pass. */

import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import { CACHED_TOKENS, MODEL_OF, setupText, WEATHER_SCHEMA } from "../helpers/text_setup.ts";
import { INBOUND, send } from "../helpers/text_inbound.ts";

const chatTools = [
  { type: "function" as const, function: { name: "get_weather", parameters: WEATHER_SCHEMA } },
  { type: "function" as const, function: { name: "get_time", parameters: WEATHER_SCHEMA } },
];

async function sseData(response: Response): Promise<Array<Record<string, unknown>>> {
  const text = await response.text();
  return text.split("\n\n").filter((frame) => frame.startsWith("data: {")).map((frame) =>
    JSON.parse(frame.slice(6))
  );
}

Deno.test(
  "portkey#1399: the first chunk converted from an Anthropic stream carries role assistant",
  serverTest,
  async () => {
    await using s = await setupText();
    const chunks = await sseData(await send(s, INBOUND.chat, "anthropic", true));
    // deno-lint-ignore no-explicit-any
    assertEquals((chunks[0] as any).choices[0].delta.role, "assistant");
  },
);

Deno.test(
  "portkey#1275: several tool calls streamed at once keep their own arguments",
  serverTest,
  async () => {
    await using s = await setupText();
    for (const type of ["anthropic", "openai-responses", "gemini"] as const) {
      const client = new OpenAI({ apiKey: s.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
      const final = await client.chat.completions.stream({
        model: MODEL_OF[type],
        messages: [{ role: "user", content: "two tools" }],
        tools: chatTools,
      }).finalChatCompletion();
      const args = final.choices[0].message.tool_calls!.map((call) =>
        JSON.parse(call.function.arguments)
      );
      assertEquals(args.map((arg) => arg.index), [0, 1], type);
    }
  },
);

Deno.test(
  "portkey PR#1534: Gemini function calls finish as tool_calls, not stop",
  serverTest,
  async () => {
    await using s = await setupText();
    const client = new OpenAI({ apiKey: s.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
    const answer = await client.chat.completions.create({
      model: MODEL_OF.gemini,
      messages: [{ role: "user", content: "weather" }],
      tools: chatTools,
    });
    assertEquals(answer.choices[0].finish_reason, "tool_calls");
    const streamed = await client.chat.completions.stream({
      model: MODEL_OF.gemini,
      messages: [{ role: "user", content: "weather" }],
      tools: chatTools,
    }).finalChatCompletion();
    assertEquals(streamed.choices[0].finish_reason, "tool_calls");
  },
);

Deno.test(
  "litellm#25321: /v1/messages keeps tool_use arguments from non-Anthropic upstreams",
  serverTest,
  async () => {
    await using s = await setupText();
    const client = new Anthropic({ apiKey: s.key, baseURL: s.gw.url, maxRetries: 0 });
    for (const type of ["openai", "openai-responses", "gemini"] as const) {
      const answer = await client.messages.stream({
        model: MODEL_OF[type],
        max_tokens: 200,
        tools: [{ name: "get_weather", input_schema: WEATHER_SCHEMA }],
        messages: [{ role: "user", content: "weather" }],
      }).finalMessage();
      const use = answer.content.find((block) => block.type === "tool_use");
      assertEquals(use?.type === "tool_use" && use.input, {
        city: "City 0",
        unit: "celsius",
        index: 0,
      }, type);
    }
  },
);

Deno.test(
  "new-api#4395, bifrost#904: cached tokens are counted once, at the cached price",
  serverTest,
  async () => {
    await using s = await setupText();
    const client = new Anthropic({ apiKey: s.key, baseURL: s.gw.url, maxRetries: 0 });
    const before = await s.gw.balance(s.keyId);
    // An OpenAI upstream counts cached tokens inside prompt_tokens; Anthropic outside input_tokens.
    const answer = await client.messages.create({
      model: MODEL_OF.openai,
      max_tokens: 100,
      messages: [{ role: "user", content: "please cache this long prompt" }],
    });
    const upstreamUsage = (await s.chat.requests.length) > 0;
    assertOk(upstreamUsage);
    const cached = answer.usage.cache_read_input_tokens ?? 0;
    assertEquals(cached, CACHED_TOKENS);
    const cost = Math.ceil(
      answer.usage.input_tokens + cached * 0.5 + answer.usage.output_tokens * 2,
    );
    await s.gw.settle();
    assertEquals(before - await s.gw.balance(s.keyId), cost);
  },
);

Deno.test(
  "new-api#4168, portkey#1142: a stream that fails is never billed from estimates, and says so",
  serverTest,
  async () => {
    await using s = await setupText();
    s.anthropic.faults.push({ kind: "die_mid_stream", afterFrames: 5 });
    const text = await (await send(s, INBOUND.responses, "anthropic", true)).text();
    assertOk(INBOUND.responses.streamError(text), text.slice(-200));
    await s.gw.settle();
    await assertNothingCharged(s, 100_000_000);
  },
);

Deno.test(
  "new-api#7307: a system message in mid-conversation reaches Anthropic and Gemini upstreams",
  serverTest,
  async () => {
    await using s = await setupText();
    for (const type of ["anthropic", "gemini"] as const) {
      const response = await send(s, INBOUND.chat, type, false, {
        messages: [
          { role: "user", content: "first" },
          { role: "assistant", content: "ok" },
          { role: "system", content: "Now answer in French." },
          { role: "user", content: "second" },
        ],
      });
      assertEquals(response.status, 200, type);
      const body = await response.json();
      assertEquals(body.choices[0].message.content, "Echo: second");
    }
    assertOk(String(s.lastBody("gemini").systemInstruction ? "yes" : "") === "yes");
  },
);

Deno.test(
  "new-api#4795: tool calls keep the reasoning that came with them",
  serverTest,
  async () => {
    await using s = await setupText();
    const client = new Anthropic({ apiKey: s.key, baseURL: s.gw.url, maxRetries: 0 });
    for (const type of ["openai", "openai-responses", "gemini"] as const) {
      const answer = await client.messages.create({
        model: MODEL_OF[type],
        max_tokens: 4000,
        thinking: { type: "enabled", budget_tokens: 2048 },
        tools: [{ name: "get_weather", input_schema: WEATHER_SCHEMA }],
        messages: [{ role: "user", content: "weather" }],
      });
      // Gemini signs the call itself: its signature comes as a thinking block of its own.
      assertEquals(
        answer.content.map((block) => block.type),
        type === "gemini" ? ["thinking", "thinking", "tool_use"] : ["thinking", "tool_use"],
        type,
      );
    }
  },
);

Deno.test(
  "new-api#5235: a responses stream the client leaves is billed for what was produced",
  serverTest,
  async () => {
    await using s = await setupText();
    s.anthropic.options.chunkDelayMs = 20;
    const response = await send(s, INBOUND.responses, "anthropic", true);
    const reader = response.body!.getReader();
    await reader.read();
    await reader.read();
    await reader.cancel();
    for (let i = 0; i < 100; i++) {
      await s.gw.settle();
      if ((await s.gw.ledger(s.keyId)).some((entry) => entry.type === "charge")) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const settle = (await s.gw.ledger(s.keyId)).find((entry) => entry.type === "charge");
    assertOk((settle?.cost ?? 0) > 0, "the disconnected stream was billed");
    await s.gw.assertLedgerInvariant(s.keyId);
  },
);
