/** /v1/responses with the openai SDK (6.x and 7.x) against every text channel type. */

import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { postJson, serverTest } from "../helpers/gateway.ts";
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
  { type: "function" as const, name: "get_weather", parameters: WEATHER_SCHEMA, strict: false },
  { type: "function" as const, name: "get_time", parameters: WEATHER_SCHEMA, strict: false },
];

for (const type of CHANNEL_TYPES) {
  const model = MODEL_OF[type];

  Deno.test(
    `responses → ${type}: text, stream helper, tools in two turns, images, reasoning`,
    serverTest,
    async () => {
      await using s = await setupText();
      for (const client of openaiClients(s)) {
        const answer = await client.responses.create({
          model,
          instructions: "Be brief.",
          input: "hello",
        });
        assertEquals(answer.output_text, "Echo: hello");
        assertEquals(answer.status, "completed");
        assertEquals(answer.model, model);
        assertEquals(answer.usage?.input_tokens_details.cached_tokens, CACHED_TOKENS);

        const stream = client.responses.stream({ model, input: "stream please" });
        let deltas = "";
        stream.on("response.output_text.delta", (event) => deltas += event.delta);
        const final = await stream.finalResponse();
        assertEquals(final.output_text, "Echo: stream please");
        assertEquals(deltas, "Echo: stream please");
        assertOk((final.usage?.output_tokens ?? 0) > 0, `${type}: usage at the end`);

        const called = await client.responses.stream({ model, input: "weather?", tools })
          .finalResponse();
        const calls = called.output.filter((item) => item.type === "function_call");
        assertEquals(calls.map((call) => call.name), ["get_weather", "get_time"], type);
        assertEquals(JSON.parse(calls[0].arguments).city, "City 0");
        const second = await client.responses.create({
          model,
          tools,
          input: [
            { role: "user", content: "weather?" },
            ...calls.map((call) => ({
              type: "function_call" as const,
              call_id: call.call_id,
              name: call.name,
              arguments: call.arguments,
            })),
            ...calls.map((call) => ({
              type: "function_call_output" as const,
              call_id: call.call_id,
              output: `sunny in ${JSON.parse(call.arguments).city}`,
            })),
          ],
        });
        assertOk(/sunny in City 0.*sunny in City 1/.test(second.output_text), second.output_text);

        const seen = await client.responses.create({
          model,
          input: [{
            role: "user",
            content: [
              { type: "input_text", text: "what is this" },
              {
                type: "input_image",
                image_url: `data:image/png;base64,${RED_PNG_B64}`,
                detail: "auto",
              },
            ],
          }],
        });
        assertEquals(seen.output_text, "Echo: what is this [images: 1]");

        const thought = await client.responses.create({
          model,
          input: "think",
          reasoning: { effort: "low" },
          max_output_tokens: 4000,
        });
        const reasoning = thought.output.find((item) => item.type === "reasoning");
        assertEquals(reasoning?.summary[0]?.text, "Considering: think", type);
        assertEquals(thought.output_text, "Echo: think");
      }
    },
  );
}

Deno.test(
  "responses: state kept upstream is refused with 400 where the channel cannot keep it",
  serverTest,
  async () => {
    await using s = await setupText();
    for (const type of ["openai", "anthropic", "gemini"] as const) {
      const response = await postJson(s.gw, "/v1/responses", s.key, {
        model: MODEL_OF[type],
        input: "again",
        previous_response_id: "resp_123",
      });
      const body = await response.json();
      assertEquals(response.status, 400, type);
      assertEquals(body.error.code, "unsupported_on_channel");
      assertEquals(body.error.param, "previous_response_id");
      assertOk(body.error.message.includes("instead"), body.error.message);
    }
    assertEquals(s.count("openai") + s.count("anthropic") + s.count("gemini"), 0);
    await assertNothingCharged(s, 100_000_000);
  },
);
