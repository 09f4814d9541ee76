import { assertEquals, assertOk } from "../../helpers/assert.ts";
import {
  declaredToolOf,
  flattenToolNames,
  restoreDeclaredCall,
  TOOL_NAME_LIMIT,
  upstreamToolName,
} from "../../../core/formats/tool_names.ts";

const codexTools = [
  { name: "spawn", namespace: "multi_agent_v1" },
  { name: "wait", namespace: "multi_agent_v1" },
  { name: "shell" },
  { name: "apply_patch", freeform: true },
];

Deno.test("flattenToolNames() names namespaced tools <namespace>__<name> and keeps the others", () => {
  const map = flattenToolNames(codexTools);
  assertEquals([...map.declared.keys()], [
    "shell",
    "apply_patch",
    "multi_agent_v1__spawn",
    "multi_agent_v1__wait",
  ]);
  assertEquals(declaredToolOf(map, "multi_agent_v1__wait"), {
    name: "wait",
    namespace: "multi_agent_v1",
  });
  assertEquals(declaredToolOf(map, "apply_patch"), { name: "apply_patch", freeform: true });
  assertEquals(declaredToolOf(map, "unknown"), { name: "unknown" });
});

Deno.test("flattenToolNames() gives a stable suffix when the flat name is taken", () => {
  const tools = [{ name: "a__b" }, { name: "b", namespace: "a" }];
  const map = flattenToolNames(tools);
  const flat = upstreamToolName(map, { name: "b", namespace: "a" });
  assertOk(/^a__b_[0-9a-f]{8}$/.test(flat), flat);
  assertEquals(upstreamToolName(map, { name: "a__b" }), "a__b");
  assertEquals(declaredToolOf(map, flat), { name: "b", namespace: "a" });
  assertEquals(upstreamToolName(flattenToolNames(tools), { name: "b", namespace: "a" }), flat);
});

Deno.test("flattenToolNames() keeps long and odd names within the limit and unique", () => {
  const long = "n".repeat(50);
  const tools = [
    { name: `${"f".repeat(40)}1`, namespace: long },
    { name: `${"f".repeat(40)}2`, namespace: long },
    { name: "read.file", namespace: "9fs" },
  ];
  const map = flattenToolNames(tools);
  const names = tools.map((tool) => upstreamToolName(map, tool));
  assertEquals(new Set(names).size, 3);
  for (const name of names) {
    assertOk(name.length <= TOOL_NAME_LIMIT && /^[A-Za-z_][A-Za-z0-9_-]*$/.test(name), name);
  }
  names.forEach((name, index) => assertEquals(declaredToolOf(map, name), tools[index]));
});

Deno.test("upstreamToolName() finds a namespaced tool by its flat or its own unique name", () => {
  const map = flattenToolNames(codexTools);
  assertEquals(upstreamToolName(map, { name: "spawn" }), "multi_agent_v1__spawn");
  assertEquals(upstreamToolName(map, { name: "multi_agent_v1__spawn" }), "multi_agent_v1__spawn");
  assertEquals(upstreamToolName(map, { name: "spawn", namespace: null }), "multi_agent_v1__spawn");
  assertEquals(upstreamToolName(map, { name: "shell" }), "shell");
  assertEquals(upstreamToolName(map, { name: "other", namespace: "x" }), "other");
  const twice = flattenToolNames([{ name: "go", namespace: "a" }, { name: "go", namespace: "b" }]);
  assertEquals(upstreamToolName(twice, { name: "go" }), "go");
});

Deno.test("restoreDeclaredCall() renames tool calls only", () => {
  const map = flattenToolNames(codexTools);
  assertEquals(
    restoreDeclaredCall(map, {
      type: "tool_call",
      id: "c1",
      name: "multi_agent_v1__spawn",
      arguments: "{}",
    }),
    { type: "tool_call", id: "c1", name: "spawn", namespace: "multi_agent_v1", arguments: "{}" },
  );
  const text = { type: "text", text: "hi" };
  assertEquals(restoreDeclaredCall(map, text), text);
  const fragment = { type: "tool_call", index: 0, arguments: "{" };
  assertEquals(restoreDeclaredCall(map, fragment), fragment);
  const call = { type: "tool_call", name: "x" };
  assertEquals(restoreDeclaredCall(undefined, call), call);
});
