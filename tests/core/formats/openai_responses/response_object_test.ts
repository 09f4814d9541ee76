/** The response object of converted answers: every field OpenAI's definition requires. */

import { assertEquals } from "../../../helpers/assert.ts";
import type { NeutralEvent } from "../../../../core/formats/neutral.ts";
import { encodeResponsesResponse } from "../../../../core/formats/openai_responses/encode_response.ts";
import { ResponsesStreamEncoder } from "../../../../core/formats/openai_responses/encode_stream.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** The fields OpenAI's OpenAPI document (2.3.0) requires of a Response. */
const REQUIRED = [
  "id",
  "object",
  "created_at",
  "error",
  "incomplete_details",
  "instructions",
  "model",
  "tools",
  "output",
  "parallel_tool_calls",
  "metadata",
  "tool_choice",
  "temperature",
  "top_p",
];

const declaredTools = [
  { type: "function", name: "get_weather", parameters: { type: "object" }, strict: false },
  { type: "function", name: "bare" },
  { type: "custom", name: "apply_patch" },
];

const request = {
  model: "m",
  input: "hi",
  instructions: "Be brief.",
  metadata: { trace: "t-1" },
  temperature: 0.4,
  top_p: 0.9,
  tool_choice: { type: "function", name: "get_weather" },
  parallel_tool_calls: false,
  tools: declaredTools,
  max_output_tokens: 300,
  reasoning: { effort: "low" },
  text: { format: { type: "json_object" } },
  safety_identifier: "user-7",
};

/** What the response repeats of `request` (function tools get their nullable fields). */
const repeated = {
  instructions: "Be brief.",
  metadata: { trace: "t-1" },
  temperature: 0.4,
  top_p: 0.9,
  tool_choice: { type: "function", name: "get_weather" },
  parallel_tool_calls: false,
  tools: [
    { description: null, ...declaredTools[0] },
    { description: null, parameters: null, strict: null, ...declaredTools[1] },
    declaredTools[2],
  ],
  max_output_tokens: 300,
  reasoning: { effort: "low", summary: null },
  text: { format: { type: "json_object" }, verbosity: "medium" },
  safety_identifier: "user-7",
  store: false,
  truncation: "disabled",
};

/** The documented defaults, for a request that sets nothing. */
const defaults = {
  instructions: null,
  metadata: {},
  temperature: 1,
  top_p: 1,
  tool_choice: "auto",
  parallel_tool_calls: true,
  tools: [],
  max_output_tokens: null,
  reasoning: { effort: null, summary: null },
  text: { format: { type: "text" }, verbosity: "medium" },
  store: false,
  truncation: "disabled",
};

function pick(object: Json, fields: string[]): Json {
  return Object.fromEntries(fields.map((field) => [field, object[field]]));
}

function assertCarries(response: Json, expected: Json, label: string) {
  for (const field of REQUIRED) assertEquals(field in response, true, `${label}: ${field}`);
  assertEquals(pick(response, Object.keys(expected)), expected, label);
}

const usage = { input_tokens: 10, cached_input_tokens: 4, output_tokens: 5 };

Deno.test("encodeResponsesResponse() repeats the request's settings, or their documented defaults", () => {
  const answer = { id: "r1", model: "up", created: 1, stop: "stop" as const, usage };
  const parts = [{ type: "text" as const, text: "hi" }];
  const whole = encodeResponsesResponse({ ...answer, parts }, "m", request);
  assertCarries(whole, repeated, "declared");
  assertEquals(typeof whole.completed_at, "number");
  assertEquals(whole.usage.input_tokens_details, { cached_tokens: 4, cache_write_tokens: 0 });
  assertCarries(
    encodeResponsesResponse({ ...answer, parts }, "m", { input: "x" }),
    defaults,
    "bare",
  );
});

function events(frames: string): Json[] {
  return frames.split("\n\n").filter(Boolean).map((frame) =>
    JSON.parse(frame.split("\n").find((line) => line.startsWith("data: "))!.slice(6))
  );
}

const streamed: NeutralEvent[] = [
  { type: "start", id: "r1", model: "up" },
  { type: "text", text: "Hi" },
  { type: "stop", reason: "stop" },
  { type: "usage", usage },
];

Deno.test("ResponsesStreamEncoder repeats the request's settings in created, in_progress and completed", () => {
  for (const [body, expected, label] of [[request, repeated, "declared"], [{}, defaults, "bare"]]) {
    const encoder = new ResponsesStreamEncoder("m", { body });
    const all = events(streamed.map((event) => encoder.encode(event)).join("") + encoder.end());
    const lifecycle = all.filter((event) => event.response);
    assertEquals(lifecycle.map((event) => event.type), [
      "response.created",
      "response.in_progress",
      "response.completed",
    ]);
    for (const event of lifecycle) {
      assertCarries(event.response, expected, `${label} ${event.type}`);
    }
    // Usage is not known before the end, and the definition does not let it be null.
    assertEquals("usage" in lifecycle[0].response, false);
    assertEquals(lifecycle[2].response.usage.total_tokens, 15);
  }
});
