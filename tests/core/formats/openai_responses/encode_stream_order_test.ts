/** Tool calls in a converted responses stream: one item after another, as OpenAI streams them. */

import { assertEquals } from "../../../helpers/assert.ts";
import type { NeutralEvent } from "../../../../core/formats/neutral.ts";
import { ResponsesStreamEncoder } from "../../../../core/formats/openai_responses/encode_stream.ts";
import { ResponsesStreamDecoder } from "../../../../core/formats/openai_responses/decode_stream.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

function events(frames: string): Json[] {
  return frames.split("\n\n").filter(Boolean).map((frame) =>
    JSON.parse(frame.split("\n").find((line) => line.startsWith("data: "))!.slice(6))
  );
}

/** Two parallel calls whose deltas come interleaved, as a chat upstream may send them. */
const interleaved: NeutralEvent[] = [
  { type: "start", id: "r1", model: "up" },
  { type: "text", text: "Calling." },
  { type: "tool_call", index: 0, id: "c0", name: "get_weather", arguments: "" },
  { type: "tool_call", index: 1, id: "c1", name: "get_time", arguments: "" },
  { type: "tool_call", index: 0, arguments: '{"city"' },
  { type: "tool_call", index: 1, arguments: '{"zone"' },
  { type: "tool_call", index: 0, arguments: ':"Oslo"}' },
  { type: "tool_call", index: 1, arguments: ':"UTC"}' },
  { type: "stop", reason: "tool_calls" },
];

Deno.test("ResponsesStreamEncoder streams interleaved calls one after another, done events named", () => {
  const encoder = new ResponsesStreamEncoder("m");
  const all = events(interleaved.map((event) => encoder.encode(event)).join("") + encoder.end());
  assertEquals(all.map((event) => event.sequence_number), all.map((_, index) => index));
  const items = all.filter((event) => event.output_index !== undefined)
    .map((event) => [event.output_index, event.type]);
  assertEquals(items.filter(([index]) => index > 0), [
    [1, "response.output_item.added"],
    [1, "response.function_call_arguments.delta"],
    [1, "response.function_call_arguments.delta"],
    [1, "response.function_call_arguments.done"],
    [1, "response.output_item.done"],
    [2, "response.output_item.added"],
    [2, "response.function_call_arguments.delta"],
    [2, "response.function_call_arguments.done"],
    [2, "response.output_item.done"],
  ]);
  const done = all.filter((event) => event.type === "response.function_call_arguments.done");
  assertEquals(done.map((event) => [event.name, event.arguments]), [
    ["get_weather", '{"city":"Oslo"}'],
    ["get_time", '{"zone":"UTC"}'],
  ]);
  const output = all.at(-1).response.output;
  assertEquals(output.map((item: Json) => [item.type, item.call_id, item.arguments]), [
    ["message", undefined, undefined],
    ["function_call", "c0", '{"city":"Oslo"}'],
    ["function_call", "c1", '{"zone":"UTC"}'],
  ]);
});

Deno.test("ResponsesStreamEncoder: a held free-form call follows the streaming one whole", () => {
  const encoder = new ResponsesStreamEncoder("m");
  const input = JSON.stringify({ input: "*** Begin Patch\n*** End Patch" });
  const out = [
    { type: "tool_call", index: 0, id: "c0", name: "apply_patch", freeform: true, arguments: "" },
    { type: "tool_call", index: 1, id: "c1", name: "f", arguments: "{}" },
    { type: "tool_call", index: 0, arguments: input },
  ].map((event) => encoder.encode(event as NeutralEvent)).join("") + encoder.end();
  const items = events(out).filter((event) => event.output_index !== undefined)
    .map((event) => [event.output_index, event.type]);
  assertEquals(items, [
    [0, "response.output_item.added"],
    [0, "response.custom_tool_call_input.delta"],
    [0, "response.custom_tool_call_input.done"],
    [0, "response.output_item.done"],
    [1, "response.output_item.added"],
    [1, "response.function_call_arguments.delta"],
    [1, "response.function_call_arguments.done"],
    [1, "response.output_item.done"],
  ]);
  assertEquals(events(out).at(-1).response.output[0].input, "*** Begin Patch\n*** End Patch");
});

Deno.test("ResponsesStreamDecoder.nextSequence follows the upstream; an added error continues it", () => {
  const decoder = new ResponsesStreamDecoder();
  assertEquals(decoder.nextSequence, 0);
  decoder.decode(
    "response.created",
    JSON.stringify({
      type: "response.created",
      sequence_number: 0,
      response: { id: "r", model: "m" },
    }),
  );
  decoder.decode("response.in_progress", '{"type":"response.in_progress","sequence_number":1}');
  assertEquals(decoder.nextSequence, 2);
  const encoder = new ResponsesStreamEncoder("", { nextSequence: decoder.nextSequence });
  const [error] = events(encoder.error("the upstream stream broke", "upstream_stream_interrupted"));
  assertEquals([error.type, error.sequence_number, error.param], ["error", 2, null]);
});
