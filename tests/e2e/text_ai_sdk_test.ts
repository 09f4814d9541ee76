/**
 * The AI SDK's providers (@ai-sdk/openai responses and chat, @ai-sdk/anthropic, @ai-sdk/google)
 * with generateText and streamText, tools run in a loop, against every text channel type.
 */

import { generateText, jsonSchema, type LanguageModel, stepCountIs, streamText, tool } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import {
  CHANNEL_TYPES,
  MODEL_OF,
  setupText,
  type TextSetup,
  WEATHER_SCHEMA,
} from "../helpers/text_setup.ts";

/**
 * Each provider's model maker and the call settings it needs. The Anthropic provider does not know
 * the gateway's model names, so it is given maxOutputTokens (the 4096 it would fall back to)
 * rather than warn that it limited an unknown model.
 */
function providers(
  s: TextSetup,
): Record<string, { model(id: string): LanguageModel; settings?: { maxOutputTokens: number } }> {
  const openai = createOpenAI({ apiKey: s.key, baseURL: `${s.gw.url}/v1` });
  const anthropic = createAnthropic({ apiKey: s.key, baseURL: `${s.gw.url}/v1` });
  const google = createGoogleGenerativeAI({ apiKey: s.key, baseURL: `${s.gw.url}/v1beta` });
  return {
    "openai (responses)": { model: (model: string) => openai(model) },
    "openai.chat": { model: (model: string) => openai.chat(model) },
    anthropic: { model: (model: string) => anthropic(model), settings: { maxOutputTokens: 4096 } },
    google: { model: (model: string) => google(model) },
  };
}

const weather = tool({
  description: "Weather in a city",
  inputSchema: jsonSchema<{ city: string; unit?: string }>(WEATHER_SCHEMA),
  execute: ({ city }) => Promise.resolve(`sunny in ${city}`),
});

for (const type of CHANNEL_TYPES) {
  Deno.test(
    `AI SDK providers → ${type}: generateText with a tool loop, streamText`,
    serverTest,
    async () => {
      await using s = await setupText();
      for (const [name, provider] of Object.entries(providers(s))) {
        const model = provider.model(MODEL_OF[type]);
        const settings = { maxRetries: 0, ...provider.settings };
        const plain = await generateText({ model, prompt: "hello", ...settings });
        assertEquals(plain.text, "Echo: hello", `${name} → ${type}`);
        assertOk((plain.usage.inputTokens ?? 0) > 0, `${name} → ${type}: usage`);

        const looped = await generateText({
          model,
          prompt: "weather?",
          tools: { get_weather: weather, get_time: weather },
          stopWhen: stepCountIs(3),
          ...settings,
        });
        assertEquals(looped.steps[0].toolCalls.map((call) => call.toolName), [
          "get_weather",
          "get_time",
        ], `${name} → ${type}`);
        assertOk(
          /sunny in City 0.*sunny in City 1/.test(looped.text),
          `${name} → ${type}: ${looped.text}`,
        );

        const streamed = streamText({ model, prompt: "stream please", ...settings });
        assertEquals(await streamed.text, "Echo: stream please", `${name} → ${type}`);
        const streamedTools = streamText({
          model,
          prompt: "weather?",
          tools: { get_weather: weather },
          stopWhen: stepCountIs(2),
          ...settings,
        });
        assertOk((await streamedTools.text).includes("sunny in City 0"), `${name} → ${type}`);
      }
    },
  );
}
