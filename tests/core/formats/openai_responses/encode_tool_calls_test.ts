import { assertEquals } from "../../../helpers/assert.ts";
import { encodeResponsesResponse } from "../../../../core/formats/openai_responses/encode_response.ts";
import { ResponsesStreamEncoder } from "../../../../core/formats/openai_responses/encode_stream.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const patchArguments = JSON.stringify({ input: "*** Begin Patch\n*** End Patch" });

Deno.test("encodeResponsesResponse() writes namespaced function calls and custom tool calls", () => {
  const answer = encodeResponsesResponse({
    id: "r1",
    model: "m",
    created: 1,
    stop: "tool_calls",
    parts: [
      {
        type: "tool_call",
        id: "c1",
        name: "spawn",
        namespace: "multi_agent_v1",
        arguments: "{}",
      },
      {
        type: "tool_call",
        id: "c2",
        name: "apply_patch",
        freeform: true,
        arguments: patchArguments,
      },
    ],
  }, "m");
  const [spawn, patch] = answer.output;
  assertEquals([spawn.type, spawn.name, spawn.namespace, spawn.call_id], [
    "function_call",
    "spawn",
    "multi_agent_v1",
    "c1",
  ]);
  assertEquals([patch.type, patch.name, patch.input, patch.call_id, "namespace" in patch], [
    "custom_tool_call",
    "apply_patch",
    "*** Begin Patch\n*** End Patch",
    "c2",
    false,
  ]);
});

function events(frames: string): Json[] {
  return frames.split("\n\n").filter(Boolean).map((frame) =>
    JSON.parse(frame.split("\n").find((line) => line.startsWith("data: "))!.slice(6))
  );
}

Deno.test("ResponsesStreamEncoder writes a namespaced call and a custom call's input events", () => {
  const encoder = new ResponsesStreamEncoder("m");
  let out = encoder.encode({ type: "start", id: "r1", model: "m" });
  out += encoder.encode({
    type: "tool_call",
    index: 0,
    id: "c1",
    name: "spawn",
    namespace: "multi_agent_v1",
    arguments: "{}",
  });
  out += encoder.encode({
    type: "tool_call",
    index: 1,
    id: "c2",
    name: "apply_patch",
    freeform: true,
    arguments: patchArguments.slice(0, 10),
  });
  out += encoder.encode({ type: "tool_call", index: 1, arguments: patchArguments.slice(10) });
  out += encoder.end();
  const all = events(out);
  const added = all.filter((event) => event.type === "response.output_item.added");
  assertEquals(added.map((event) => [event.item.type, event.item.name, event.item.namespace]), [
    ["function_call", "spawn", "multi_agent_v1"],
    ["custom_tool_call", "apply_patch", undefined],
  ]);
  const inputDone = all.find((event) => event.type === "response.custom_tool_call_input.done");
  assertEquals(inputDone.input, "*** Begin Patch\n*** End Patch");
  const completed = all.at(-1);
  assertEquals(completed.type, "response.completed");
  assertEquals(completed.response.output.map((item: Json) => item.type), [
    "function_call",
    "custom_tool_call",
  ]);
  assertEquals(completed.response.output[1].input, "*** Begin Patch\n*** End Patch");
});
