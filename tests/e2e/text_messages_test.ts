/** /v1/messages with @anthropic-ai/sdk 0.x (x-api-key) and 1.x (Bearer) on every channel type. */

import Anthropic from "@anthropic-ai/sdk";
import Anthropic1 from "@anthropic-ai/sdk1";
import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { postJson, serverTest } from "../helpers/gateway.ts";
import {
  CACHED_TOKENS,
  CHANNEL_TYPES,
  MODEL_OF,
  RED_PNG_B64,
  setupText,
  type TextSetup,
  WEATHER_SCHEMA,
} from "../helpers/text_setup.ts";

const tools = [
  { name: "get_weather", description: "Weather", input_schema: WEATHER_SCHEMA },
  { name: "get_time", description: "Time", input_schema: WEATHER_SCHEMA },
];

function clients(s: TextSetup): Anthropic[] {
  return [
    new Anthropic({ apiKey: s.key, baseURL: s.gw.url, maxRetries: 0 }),
    new Anthropic1({ apiKey: s.key, baseURL: s.gw.url, maxRetries: 0 }) as unknown as Anthropic,
  ];
}

for (const type of CHANNEL_TYPES) {
  const model = MODEL_OF[type];

  Deno.test(
    `messages → ${type}: text, stream + finalMessage, tools in two turns, images, thinking, count_tokens`,
    serverTest,
    async () => {
      await using s = await setupText();
      for (const client of clients(s)) {
        const answer = await client.messages.create({
          model,
          max_tokens: 256,
          system: "Be brief.",
          messages: [{ role: "user", content: "hello" }],
        });
        assertEquals(
          answer.content,
          [{ type: "text", text: "Echo: hello" }] as typeof answer.content,
        );
        assertEquals(answer.stop_reason, "end_turn");
        assertEquals(answer.model, model);
        assertEquals(answer.usage.cache_read_input_tokens, CACHED_TOKENS, type);

        const stream = client.messages.stream({
          model,
          max_tokens: 256,
          messages: [{ role: "user", content: "stream please" }],
        });
        let text = "";
        stream.on("text", (delta) => text += delta);
        const final = await stream.finalMessage();
        assertEquals(text, "Echo: stream please");
        assertEquals(
          final.content[0].type === "text" && final.content[0].text,
          "Echo: stream please",
        );
        assertOk(final.usage.output_tokens > 0, `${type}: output tokens in message_delta`);

        const called = await client.messages.stream({
          model,
          max_tokens: 256,
          tools,
          messages: [{ role: "user", content: "weather?" }],
        }).finalMessage();
        assertEquals(called.stop_reason, "tool_use", type);
        const uses = called.content.filter((block) => block.type === "tool_use");
        assertEquals(uses.map((use) => use.name), ["get_weather", "get_time"]);
        assertEquals((uses[1].input as { city: string }).city, "City 1");
        const second = await client.messages.create({
          model,
          max_tokens: 256,
          tools,
          messages: [
            { role: "user", content: "weather?" },
            { role: "assistant", content: called.content },
            {
              role: "user",
              content: uses.map((use) => ({
                type: "tool_result" as const,
                tool_use_id: use.id,
                content: `sunny in ${(use.input as { city: string }).city}`,
              })),
            },
          ],
        });
        const echoed = second.content[0].type === "text" ? second.content[0].text : "";
        assertOk(/sunny in City 0.*sunny in City 1/.test(echoed), echoed);

        const seen = await client.messages.create({
          model,
          max_tokens: 256,
          messages: [{
            role: "user",
            content: [
              { type: "text", text: "what is this" },
              {
                type: "image",
                source: { type: "base64", media_type: "image/png", data: RED_PNG_B64 },
              },
            ],
          }],
        });
        assertEquals(
          seen.content[0].type === "text" && seen.content[0].text,
          "Echo: what is this [images: 1]",
        );

        const thought = await client.messages.create({
          model,
          max_tokens: 4000,
          thinking: { type: "enabled", budget_tokens: 2048 },
          messages: [{ role: "user", content: "think" }],
        });
        const thinking = thought.content.find((block) => block.type === "thinking");
        assertEquals(
          thinking?.type === "thinking" && thinking.thinking,
          "Considering: think",
          type,
        );
        assertEquals(typeof (thinking as { signature?: string }).signature, "string");

        const counted = await client.messages.countTokens({
          model,
          messages: [{ role: "user", content: "count these words please" }],
        });
        assertOk(counted.input_tokens > 0, `${type}: ${counted.input_tokens}`);
      }
    },
  );
}

Deno.test(
  "messages: a system role inside messages is a 400 in Anthropic's envelope, no charge",
  serverTest,
  async () => {
    await using s = await setupText();
    const response = await postJson(s.gw, "/v1/messages", null, {
      model: MODEL_OF.anthropic,
      max_tokens: 10,
      messages: [{ role: "system", content: "no" }, { role: "user", content: "hi" }],
    }, { "x-api-key": s.key, "anthropic-version": "2023-06-01" });
    const body = await response.json();
    assertEquals(response.status, 400);
    assertEquals(body.type, "error");
    assertEquals(body.error.type, "invalid_request_error");
    assertOk(body.error.message.includes("top-level 'system'"), body.error.message);
    const noMax = await postJson(s.gw, "/v1/messages", null, {
      model: MODEL_OF.gemini,
      messages: [{ role: "user", content: "hi" }],
    }, { "x-api-key": s.key });
    assertEquals(noMax.status, 400);
    assertOk((await noMax.json()).error.message.includes("max_tokens"));
    assertEquals(s.count("anthropic") + s.count("gemini"), 0);
    await assertNothingCharged(s, 100_000_000);
  },
);
