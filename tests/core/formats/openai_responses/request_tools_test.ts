import { assertEquals } from "../../../helpers/assert.ts";
import {
  hostedToolsOf,
  toolsOfRequest,
} from "../../../../core/formats/openai_responses/request_tools.ts";
import {
  decodeResponsesRequest,
  responsesOnlyFeature,
  responsesStrictFeature,
} from "../../../../core/formats/openai_responses/decode_request.ts";

const schema = { type: "object", properties: { task: { type: "string" } } };

const codexTools = [
  {
    type: "namespace",
    name: "multi_agent_v1",
    description: "Sub-agents",
    tools: [
      { type: "function", name: "spawn", description: "Start one", parameters: schema },
      { type: "function", name: "wait", parameters: schema },
    ],
  },
  { type: "web_search" },
  { type: "function", name: "shell", parameters: schema },
  { type: "custom", name: "apply_patch", format: { type: "grammar", syntax: "lark" } },
  { type: "web_search" },
  { type: "file_search", vector_store_ids: ["vs_1"] },
];

Deno.test("toolsOfRequest() flattens namespaces, converts custom tools and names hosted ones", () => {
  const tools = toolsOfRequest(codexTools);
  assertEquals(tools.declared, [
    { name: "spawn", namespace: "multi_agent_v1" },
    { name: "wait", namespace: "multi_agent_v1" },
    { name: "shell" },
    { name: "apply_patch", freeform: true },
  ]);
  assertEquals(
    tools.neutral[0].description,
    "Start one\n\n(One of the multi_agent_v1 tools: Sub-agents)",
  );
  assertEquals(tools.neutral[3].parameters.required, ["input"]);
  assertEquals(tools.dropped, [
    "tools[type=web_search]",
    "tools[type=file_search]",
    "tools[type=custom].format",
  ]);
  assertEquals(hostedToolsOf(undefined), []);
});

Deno.test("decodeResponsesRequest() uses flat names in tools, history and tool_choice", () => {
  const neutral = decodeResponsesRequest({
    model: "m",
    tools: codexTools,
    tool_choice: { type: "function", name: "wait" },
    input: [
      { role: "user", content: "go" },
      {
        type: "function_call",
        call_id: "c1",
        name: "spawn",
        namespace: "multi_agent_v1",
        arguments: "{}",
      },
      { type: "function_call_output", call_id: "c1", output: "started" },
      { type: "custom_tool_call", call_id: "c2", name: "apply_patch", input: "*** Begin Patch" },
      { type: "custom_tool_call_output", call_id: "c2", output: "done" },
    ],
  });
  assertEquals(neutral.tools.map((tool) => tool.name), [
    "multi_agent_v1__spawn",
    "multi_agent_v1__wait",
    "shell",
    "apply_patch",
  ]);
  assertEquals(neutral.toolChoice, { name: "multi_agent_v1__wait" });
  const parts = neutral.messages.flatMap((message) => message.parts);
  assertEquals(parts[1], {
    type: "tool_call",
    id: "c1",
    name: "multi_agent_v1__spawn",
    arguments: "{}",
  });
  assertEquals(parts[3], {
    type: "tool_call",
    id: "c2",
    name: "apply_patch",
    arguments: JSON.stringify({ input: "*** Begin Patch" }),
  });
  assertEquals(parts[4], { type: "tool_result", callId: "c2", content: "done" });
  assertEquals(neutral.unmapped, [
    "tools[type=web_search]",
    "tools[type=file_search]",
    "tools[type=custom].format",
  ]);
});

Deno.test("hosted tools are no longer responses-only, only strict", () => {
  assertEquals(responsesOnlyFeature({ tools: codexTools }), null);
  assertEquals(responsesStrictFeature({ tools: codexTools }), "tools[type=web_search]");
  assertEquals(responsesStrictFeature({ tools: codexTools.slice(0, 1) }), null);
});
