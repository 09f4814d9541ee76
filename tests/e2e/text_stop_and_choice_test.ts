/** Stop reasons and a named tool choice survive every conversion. */

import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { assertEquals } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import { CHANNEL_TYPES, MODEL_OF, setupText, WEATHER_SCHEMA } from "../helpers/text_setup.ts";

Deno.test(
  "a cut at max tokens finishes as length (chat) and max_tokens (messages) from every channel type",
  serverTest,
  async () => {
    await using s = await setupText();
    const openai = new OpenAI({ apiKey: s.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
    const anthropic = new Anthropic({ apiKey: s.key, baseURL: s.gw.url, maxRetries: 0 });
    const long = "a long prompt that the upstream echoes past the limit";
    for (const type of CHANNEL_TYPES) {
      const chat = await openai.chat.completions.create({
        model: MODEL_OF[type],
        max_tokens: 3,
        messages: [{ role: "user", content: long }],
      });
      assertEquals(chat.choices[0].finish_reason, "length", type);
      assertEquals(chat.choices[0].message.content?.length, 12, type);
      const streamed = await openai.chat.completions.stream({
        model: MODEL_OF[type],
        max_tokens: 3,
        messages: [{ role: "user", content: long }],
      }).finalChatCompletion();
      assertEquals(streamed.choices[0].finish_reason, "length", type);
      const message = await anthropic.messages.create({
        model: MODEL_OF[type],
        max_tokens: 3,
        messages: [{ role: "user", content: long }],
      });
      assertEquals(message.stop_reason, "max_tokens", type);
    }
  },
);

Deno.test(
  "a named tool choice calls only that tool on every channel type",
  serverTest,
  async () => {
    await using s = await setupText();
    const openai = new OpenAI({ apiKey: s.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
    for (const type of CHANNEL_TYPES) {
      const answer = await openai.chat.completions.create({
        model: MODEL_OF[type],
        messages: [{ role: "user", content: "only time" }],
        tools: [
          { type: "function", function: { name: "get_weather", parameters: WEATHER_SCHEMA } },
          { type: "function", function: { name: "get_time", parameters: WEATHER_SCHEMA } },
        ],
        tool_choice: { type: "function", function: { name: "get_time" } },
      });
      assertEquals(
        answer.choices[0].message.tool_calls?.map((call) =>
          call.type === "function" && call.function.name
        ),
        [
          "get_time",
        ],
        type,
      );
      const none = await openai.chat.completions.create({
        model: MODEL_OF[type],
        messages: [{ role: "user", content: "no tools" }],
        tools: [{
          type: "function",
          function: { name: "get_weather", parameters: WEATHER_SCHEMA },
        }],
        tool_choice: "none",
      });
      assertEquals(none.choices[0].message.content, "Echo: no tools", type);
    }
  },
);
