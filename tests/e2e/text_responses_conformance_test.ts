/**
 * /v1/responses answers from converted channels as OpenAI's definition has them, read with the
 * openai SDK (6.x and 7.x): the response object repeats the request's settings (whole and in the
 * stream's lifecycle events), tool-call items stream one after another with named done events,
 * and sequence numbers run without a gap, an error the gateway adds to a relayed stream included.
 */

import type OpenAI from "openai";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import {
  MODEL_OF,
  openaiClients,
  setupText,
  type TextChannelType,
  WEATHER_SCHEMA,
} from "../helpers/text_setup.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const CONVERTED: TextChannelType[] = ["openai", "anthropic", "gemini"];

const tools = [
  {
    type: "function" as const,
    name: "get_weather",
    description: "The weather in a city",
    parameters: WEATHER_SCHEMA,
    strict: false,
  },
  { type: "function" as const, name: "get_time", parameters: WEATHER_SCHEMA, strict: false },
];

const settings = {
  instructions: "Be brief.",
  metadata: { trace: "t-42" },
  temperature: 0.5,
  top_p: 0.9,
  tool_choice: "auto" as const,
  parallel_tool_calls: true,
  max_output_tokens: 1000,
};

/** What a response repeats of a request with `settings` and `tools`. */
const repeated = {
  ...settings,
  tools: [tools[0], { ...tools[1], description: null }],
  text: { format: { type: "text" }, verbosity: "medium" },
  truncation: "disabled",
  store: false,
  error: null,
};

/** What it says of a request that sets none of them (OpenAI's documented defaults). */
const defaults = {
  instructions: null,
  metadata: {},
  temperature: 1,
  top_p: 1,
  tool_choice: "auto",
  parallel_tool_calls: true,
  tools: [],
  error: null,
  incomplete_details: null,
};

function assertCarries(response: Json, expected: Record<string, unknown>, label: string) {
  const carried = Object.fromEntries(
    Object.keys(expected).map((field) => [field, response[field]]),
  );
  assertEquals(carried, expected, label);
}

/**
 * A stream's events are in order: sequence numbers 0, 1, 2… and each output item's events
 * (added, deltas, done) together, the next item added only after the one before is done.
 */
function assertOrdered(events: Json[], label: string) {
  assertEquals(
    events.map((event) => event.sequence_number),
    events.map((_, index) => index),
    label,
  );
  let open = -1;
  for (const event of events) {
    if (event.output_index === undefined) continue;
    if (event.type === "response.output_item.added") {
      assertEquals(open, -1, `${label}: item ${event.output_index} added while ${open} is open`);
      open = event.output_index;
    } else {
      assertEquals(event.output_index, open, `${label}: ${event.type} outside its item`);
    }
    if (event.type === "response.output_item.done") open = -1;
  }
  assertEquals(open, -1, `${label}: an item left open`);
}

async function streamEvents(
  client: OpenAI,
  body: Omit<OpenAI.Responses.ResponseCreateParamsStreaming, "stream">,
): Promise<Json[]> {
  const events: Json[] = [];
  const stream = await client.responses.create({ ...body, stream: true });
  try {
    for await (const event of stream) events.push(event);
  } catch (error) {
    // The SDK throws an `error` event: an APIError (of its own major version) holding it.
    const event = (error as { error?: Json }).error;
    if (event?.type !== "error") throw error;
    events.push(event);
  }
  return events;
}

for (const type of CONVERTED) {
  const model = MODEL_OF[type];

  Deno.test(
    `responses → ${type}: the response object repeats the request's settings, whole and streamed`,
    serverTest,
    async () => {
      await using s = await setupText();
      for (const client of openaiClients(s)) {
        const whole = await client.responses.create({
          model,
          input: "weather?",
          tools,
          ...settings,
        });
        assertCarries(whole, repeated, `${type} whole`);
        assertEquals(whole.status, "completed");
        assertEquals(typeof whole.completed_at, "number");
        assertEquals(whole.usage?.input_tokens_details.cache_write_tokens, 0);
        assertCarries(
          await client.responses.create({ model, input: "hello" }),
          defaults,
          `${type} whole, nothing set`,
        );

        const events = await streamEvents(client, {
          model,
          input: "weather?",
          tools,
          ...settings,
        });
        assertOrdered(events, `${type} stream`);
        const lifecycle = events.filter((event) => event.response);
        assertEquals(lifecycle.map((event) => event.type), [
          "response.created",
          "response.in_progress",
          "response.completed",
        ]);
        for (const event of lifecycle) assertCarries(event.response, repeated, event.type);
        const done = events.filter((event) =>
          event.type === "response.function_call_arguments.done"
        );
        assertEquals(done.map((event) => event.name), ["get_weather", "get_time"], type);
        assertEquals(JSON.parse(done[0].arguments).city, "City 0");

        const bare = await streamEvents(client, { model, input: "hello" });
        assertOrdered(bare, `${type} bare stream`);
        for (const event of bare.filter((event) => event.response)) {
          assertCarries(event.response, defaults, `${type} bare ${event.type}`);
        }
      }
    },
  );
}

Deno.test(
  "responses → openai: parallel calls the upstream interleaves stream one after another",
  serverTest,
  async () => {
    await using s = await setupText();
    s.chat.options.interleaveToolCalls = true;
    for (const client of openaiClients(s)) {
      const events = await streamEvents(client, {
        model: MODEL_OF.openai,
        input: "weather?",
        tools,
      });
      assertOrdered(events, "interleaved upstream");
      const output = events.at(-1).response.output;
      assertEquals(output.map((item: Json) => item.name), ["get_weather", "get_time"]);
      assertEquals(output.map((item: Json) => JSON.parse(item.arguments).city), [
        "City 0",
        "City 1",
      ]);
      // The SDK's own accumulation agrees.
      const final = await client.responses.stream({
        model: MODEL_OF.openai,
        input: "weather?",
        tools,
      })
        .finalResponse();
      assertEquals(final.output.map((item) => item.type === "function_call" && item.arguments), [
        output[0].arguments,
        output[1].arguments,
      ]);
    }
  },
);

Deno.test(
  "responses → openai-responses: the error the gateway adds to a broken stream continues its sequence",
  serverTest,
  async () => {
    await using s = await setupText();
    for (const client of openaiClients(s)) {
      s.responses.faults.push({ kind: "die_mid_stream", afterFrames: 5 });
      const events = await streamEvents(client, {
        model: MODEL_OF["openai-responses"],
        input: "hello",
      });
      assertEquals(events.length, 6);
      const error = events.at(-1);
      assertEquals([error.type, error.code], ["error", "upstream_stream_interrupted"]);
      assertOk(typeof error.message === "string" && error.message.length > 0);
      assertEquals(events.map((event) => event.sequence_number), [0, 1, 2, 3, 4, 5]);
    }
  },
);
