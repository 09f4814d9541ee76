/**
 * /v1/chat/completions answers from converted channels carry `refusal` as OpenAI's do: null in a
 * whole answer's message (the definition requires it) and beside the role in a stream's first
 * delta. Read with the openai SDK (6.x and 7.x).
 */

import { assertEquals } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import {
  MODEL_OF,
  openaiClients,
  setupText,
  type TextChannelType,
  WEATHER_SCHEMA,
} from "../helpers/text_setup.ts";

const CONVERTED: TextChannelType[] = ["openai-responses", "anthropic", "gemini"];

const tools = [{
  type: "function" as const,
  function: { name: "get_weather", parameters: WEATHER_SCHEMA },
}];

for (const type of CONVERTED) {
  const model = MODEL_OF[type];

  Deno.test(
    `chat → ${type}: message.refusal is null, and the first delta carries it`,
    serverTest,
    async () => {
      await using s = await setupText();
      for (const client of openaiClients(s)) {
        const text = await client.chat.completions.create({
          model,
          messages: [{ role: "user", content: "hello" }],
        });
        assertEquals(text.choices[0].message.refusal, null, `${type} text`);
        assertEquals("refusal" in text.choices[0].message, true);
        const called = await client.chat.completions.create({
          model,
          messages: [{ role: "user", content: "weather?" }],
          tools,
        });
        assertEquals(called.choices[0].message.refusal, null, `${type} tool calls`);

        const chunks = [];
        for await (
          const chunk of await client.chat.completions.create({
            model,
            messages: [{ role: "user", content: "hello" }],
            stream: true,
          })
        ) chunks.push(chunk);
        assertEquals(chunks[0].choices[0].delta, { role: "assistant", content: "", refusal: null });
      }
    },
  );
}
