/**
 * A messages answer converted from another channel type carries every usage field of the
 * Anthropic SDK's `Usage` (none of which is optional) as a real answer does: `service_tier`,
 * `cache_creation`, … in whole answers and in `message_start`, and `message_delta` those of
 * `MessageDeltaUsage`. Driven by @anthropic-ai/sdk 0.x and 1.x.
 */

import Anthropic from "@anthropic-ai/sdk";
import Anthropic1 from "@anthropic-ai/sdk1";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import { MODEL_OF, setupText, type TextSetup } from "../helpers/text_setup.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** The fields of `Usage` in @anthropic-ai/sdk 0.137 and 1.12 (resources/messages/messages.d.ts). */
const USAGE_FIELDS = [
  "cache_creation",
  "cache_creation_input_tokens",
  "cache_read_input_tokens",
  "inference_geo",
  "input_tokens",
  "output_tokens",
  "output_tokens_details",
  "server_tool_use",
  "service_tier",
  "speed",
];

/** The fields of `MessageDeltaUsage` in the same versions. */
const DELTA_USAGE_FIELDS = [
  "cache_creation_input_tokens",
  "cache_read_input_tokens",
  "input_tokens",
  "output_tokens",
  "output_tokens_details",
  "server_tool_use",
];

function clients(s: TextSetup): Anthropic[] {
  return [
    new Anthropic({ apiKey: s.key, baseURL: s.gw.url, maxRetries: 0 }),
    new Anthropic1({ apiKey: s.key, baseURL: s.gw.url, maxRetries: 0 }) as unknown as Anthropic,
  ];
}

/** What a converted answer knows of its usage beyond the counts. */
function assertConvertedUsage(usage: Json, label: string) {
  assertEquals(Object.keys(usage).sort(), USAGE_FIELDS, label);
  assertEquals(usage.service_tier, "standard", label);
  assertEquals(usage.cache_creation, {
    ephemeral_5m_input_tokens: 0,
    ephemeral_1h_input_tokens: 0,
  });
  assertEquals(usage.cache_creation_input_tokens, 0, label);
  assertEquals(usage.server_tool_use, null, label);
  assertEquals(usage.inference_geo, null, label);
  assertEquals(usage.speed, null, label);
}

for (const type of ["openai", "openai-responses", "gemini"] as const) {
  Deno.test(
    `messages ← ${type}: usage has every field of the SDK's Usage, whole and streamed`,
    serverTest,
    async () => {
      await using s = await setupText();
      for (const client of clients(s)) {
        const request = {
          model: MODEL_OF[type],
          max_tokens: 256,
          messages: [{ role: "user" as const, content: "hello" }],
        };
        const answer = await client.messages.create(request);
        assertConvertedUsage(answer.usage, `${type}: whole answer`);
        assertOk(answer.usage.cache_read_input_tokens! > 0, "the upstream's cache reads");
        assertOk(answer.usage.output_tokens > 0);
        // The other fields of `Message` that are not optional.
        assertEquals([answer.stop_details, answer.container, answer.diagnostics], [
          null,
          null,
          null,
        ]);

        const events: Json[] = [];
        const stream = client.messages.stream(request);
        stream.on("streamEvent", (event) => events.push(event));
        const final = await stream.finalMessage();
        const start = events.find((event) => event.type === "message_start");
        assertEquals(start.message.stop_details, null);
        assertConvertedUsage(start.message.usage, `${type}: message_start`);
        const delta = events.find((event) => event.type === "message_delta");
        assertEquals(Object.keys(delta.usage).sort(), DELTA_USAGE_FIELDS, `${type}: message_delta`);
        assertEquals(delta.usage.cache_read_input_tokens, answer.usage.cache_read_input_tokens);
        assertEquals(delta.usage.server_tool_use, null);
        assertEquals(delta.delta.stop_details, null);
        assertEquals(delta.delta.container, null);
        assertEquals(final.usage.output_tokens, delta.usage.output_tokens);
        assertEquals(final.usage.service_tier, "standard");
      }
    },
  );
}

Deno.test(
  "messages ← gemini: reasoning tokens are output_tokens_details.thinking_tokens",
  serverTest,
  async () => {
    await using s = await setupText();
    const [client] = clients(s);
    const answer = await client.messages.create({
      model: MODEL_OF.gemini,
      max_tokens: 1024,
      thinking: { type: "enabled", budget_tokens: 512 },
      messages: [{ role: "user", content: "think" }],
    });
    const details = answer.usage.output_tokens_details;
    assertOk(details && details.thinking_tokens > 0, JSON.stringify(answer.usage));
    assertOk(details.thinking_tokens < answer.usage.output_tokens);
  },
);
