/** Chat completions with the openai SDK (6.x and 7.x) against every text channel type. */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import {
  CACHED_TOKENS,
  CHANNEL_TYPES,
  MODEL_OF,
  openaiClients,
  RED_PNG_B64,
  setupText,
  WEATHER_SCHEMA,
} from "../helpers/text_setup.ts";

const tools = [
  { type: "function" as const, function: { name: "get_weather", parameters: WEATHER_SCHEMA } },
  { type: "function" as const, function: { name: "get_time", parameters: WEATHER_SCHEMA } },
];

for (const type of CHANNEL_TYPES) {
  const model = MODEL_OF[type];

  Deno.test(
    `chat → ${type}: text, stream helpers, tools in two turns, images, reasoning`,
    serverTest,
    async () => {
      await using s = await setupText();
      for (const client of openaiClients(s)) {
        // Charges are written every flush interval: the balance is read once they are.
        await s.gw.settle();
        const before = await s.gw.balance(s.keyId);
        const answer = await client.chat.completions.create({
          model,
          messages: [{ role: "system", content: "Be brief." }, {
            role: "user",
            content: "hello",
          }],
        });
        assertEquals(answer.choices[0].message.content, "Echo: hello");
        assertEquals(answer.choices[0].finish_reason, "stop");
        assertEquals(answer.model, model);
        assertEquals(answer.usage?.prompt_tokens_details?.cached_tokens, CACHED_TOKENS);
        const usage = answer.usage!;
        const cost = Math.ceil(
          (usage.prompt_tokens - CACHED_TOKENS) + CACHED_TOKENS * 0.5 +
            usage.completion_tokens * 2,
        );
        await s.gw.settle();
        assertEquals(await s.gw.balance(s.keyId), before - cost, `${type}: billed from usage`);

        const stream = client.chat.completions.stream({
          model,
          messages: [{ role: "user", content: "stream please" }],
          stream_options: { include_usage: true },
        });
        const final = await stream.finalChatCompletion();
        assertEquals(final.choices[0].message.content, "Echo: stream please");
        assertOk((final.usage?.completion_tokens ?? 0) > 0, `${type}: usage in the stream`);

        const called = await client.chat.completions.stream({
          model,
          messages: [{ role: "user", content: "weather?" }],
          tools,
        }).finalChatCompletion();
        const calls = called.choices[0].message.tool_calls!;
        assertEquals(called.choices[0].finish_reason, "tool_calls", type);
        assertEquals(calls.map((call) => call.function.name), ["get_weather", "get_time"]);
        assertEquals(JSON.parse(calls[1].function.arguments).city, "City 1");
        const second = await client.chat.completions.create({
          model,
          messages: [
            { role: "user", content: "weather?" },
            called.choices[0].message,
            ...calls.map((call) => ({
              role: "tool" as const,
              tool_call_id: call.id,
              content: `sunny in ${JSON.parse(call.function.arguments).city}`,
            })),
          ],
          tools,
        });
        assertEquals(second.choices[0].finish_reason, "stop", type);
        const echoed = second.choices[0].message.content ?? "";
        assertOk(/sunny in City 0.*sunny in City 1/.test(echoed), echoed);

        const seen = await client.chat.completions.create({
          model,
          messages: [{
            role: "user",
            content: [
              { type: "text", text: "what is this" },
              { type: "image_url", image_url: { url: `data:image/png;base64,${RED_PNG_B64}` } },
            ],
          }],
        });
        assertEquals(seen.choices[0].message.content, "Echo: what is this [images: 1]");

        const thought = await client.chat.completions.create({
          model,
          messages: [{ role: "user", content: "think" }],
          reasoning_effort: "low",
          max_completion_tokens: 4000,
        });
        const reasoning = (thought.choices[0].message as { reasoning_content?: string })
          .reasoning_content;
        assertEquals(reasoning, "Considering: think", type);
      }
      if (type === "anthropic") {
        const body = s.lastBody("anthropic");
        assertEquals(body.system, undefined);
        assertEquals(body.max_tokens, 4000);
        assertEquals((body.thinking as { type: string }).type, "enabled");
      }
      assertEquals(await s.gw.assertLedgerInvariant(s.keyId) < 100_000_000, true);
    },
  );
}
