/**
 * /v1/responses with a Codex-like tool list (a namespace of two functions, web_search, a
 * top-level function, a custom tool) through every text channel type, with the openai SDK.
 */

import type OpenAI from "openai";
import { assertNothingCharged, requestsBilled } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { postJson, serverTest } from "../helpers/gateway.ts";
import {
  CHANNEL_TYPES,
  MODEL_OF,
  openaiClients,
  setupText,
  type TextChannelType,
  type TextSetup,
  WEATHER_SCHEMA,
} from "../helpers/text_setup.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const NAMESPACE = {
  type: "namespace" as const,
  name: "multi_agent_v1",
  description: "Work with sub-agents",
  tools: [
    { type: "function" as const, name: "spawn", parameters: WEATHER_SCHEMA, strict: false },
    { type: "function" as const, name: "wait", parameters: WEATHER_SCHEMA, strict: false },
  ],
};

const CODEX_TOOLS = [
  NAMESPACE,
  { type: "web_search" as const },
  { type: "function" as const, name: "shell", parameters: WEATHER_SCHEMA, strict: false },
];

const FLAT_NAMES = ["multi_agent_v1__spawn", "multi_agent_v1__wait", "shell"];

/** The tool names an upstream of `type` was offered in its last request. */
function upstreamToolNames(s: TextSetup, type: TextChannelType): string[] {
  const body: Json = s.lastBody(type);
  switch (type) {
    case "openai":
      return body.tools.map((tool: Json) => tool.function.name);
    case "anthropic":
      return body.tools.map((tool: Json) => tool.name);
    case "gemini":
      return body.tools.flatMap((tool: Json) =>
        tool.functionDeclarations.map((declaration: Json) => declaration.name)
      );
    default:
      return body.tools.map((tool: Json) => tool.name);
  }
}

/** The names of tool calls in an upstream's last request history. */
function upstreamHistoryCalls(s: TextSetup, type: TextChannelType): string[] {
  const body: Json = s.lastBody(type);
  switch (type) {
    case "openai":
      return body.messages.flatMap((message: Json) =>
        (message.tool_calls ?? []).map((call: Json) => call.function.name)
      );
    case "anthropic":
      return body.messages.flatMap((message: Json) =>
        Array.isArray(message.content)
          ? message.content.filter((block: Json) => block.type === "tool_use")
            .map((block: Json) => block.name)
          : []
      );
    case "gemini":
      return body.contents.flatMap((content: Json) =>
        content.parts.filter((part: Json) => part.functionCall)
          .map((part: Json) => part.functionCall.name)
      );
    default:
      return body.input.filter((item: Json) => item.type === "function_call")
        .map((item: Json) => `${item.namespace ?? ""}:${item.name}`);
  }
}

/** The cost at TEST_TEXT_PRICE of a responses usage object the client was shown. */
function costOf(usage: Json): number {
  const cached = usage.input_tokens_details?.cached_tokens ?? 0;
  return Math.ceil((usage.input_tokens - cached) + cached * 0.5 + usage.output_tokens * 2);
}

/**
 * One bill (a share of an aggregated charge, or a settle) per request, and the balance down by exactly what the usage the
 * client saw costs.
 */
async function assertBilledOnce(s: TextSetup, usages: Json[]): Promise<void> {
  await s.gw.settle();
  const balance = await s.gw.assertLedgerInvariant(s.keyId);
  const entries = await s.gw.ledger(s.keyId);
  assertEquals(requestsBilled(entries), usages.length, JSON.stringify(entries));
  const spent = usages.reduce((sum, usage) => sum + costOf(usage), 0);
  assertOk(spent > 0);
  assertEquals(balance, 100_000_000 - spent);
}

const callsOf = (output: Json[]) =>
  output.filter((item) => item.type === "function_call")
    .map((item) => `${item.namespace ?? ""}:${item.name}`);

for (const type of CHANNEL_TYPES) {
  const model = MODEL_OF[type];
  const converted = type !== "openai-responses";

  Deno.test(
    `responses → ${type}: namespace tools flattened up and mapped back, web_search dropped`,
    serverTest,
    async () => {
      await using s = await setupText();
      const usages: Json[] = [];
      for (const client of openaiClients(s)) {
        const { data: answer, response } = await client.responses.create({
          model,
          input: "spawn two",
          tools: CODEX_TOOLS,
        }).withResponse();
        usages.push(answer.usage);
        assertEquals(callsOf(answer.output), ["multi_agent_v1:spawn", "multi_agent_v1:wait"], type);
        assertEquals(
          response.headers.get("x-gateway-ignored-fields"),
          converted ? "tools[type=web_search]" : null,
        );
        if (converted) assertEquals(upstreamToolNames(s, type), FLAT_NAMES);
        else assertEquals((s.lastBody(type) as Json).tools, CODEX_TOOLS);

        const { data: stream, response: streamed } = await client.responses.create({
          model,
          input: "spawn two, streamed",
          tools: CODEX_TOOLS,
          stream: true,
        }).withResponse();
        assertEquals(
          streamed.headers.get("x-gateway-ignored-fields"),
          converted ? "tools[type=web_search]" : null,
        );
        const added: string[] = [];
        const done: string[] = [];
        let completed: Json;
        for await (const event of stream) {
          if (event.type === "response.output_item.added" && event.item.type === "function_call") {
            added.push(`${event.item.namespace ?? ""}:${event.item.name}`);
          }
          if (event.type === "response.output_item.done" && event.item.type === "function_call") {
            done.push(`${event.item.namespace ?? ""}:${event.item.name}`);
          }
          if (event.type === "response.completed") completed = event.response;
        }
        assertEquals(added, ["multi_agent_v1:spawn", "multi_agent_v1:wait"], type);
        assertEquals(done, added);
        assertEquals(callsOf(completed.output), added);
        usages.push(completed.usage);

        // The client replays the calls with their namespace; the upstream sees the flat names.
        const calls = answer.output.filter((item) => item.type === "function_call");
        const second = await client.responses.create({
          model,
          tools: CODEX_TOOLS,
          input: [
            { role: "user", content: "spawn two" },
            ...calls.map((call) => ({
              type: "function_call" as const,
              call_id: call.call_id,
              name: call.name,
              ...(call.namespace ? { namespace: call.namespace } : {}),
              arguments: call.arguments,
            })),
            ...calls.map((call) => ({
              type: "function_call_output" as const,
              call_id: call.call_id,
              output: `started ${call.name}`,
            })),
          ],
        });
        usages.push(second.usage);
        assertOk(/started spawn.*started wait/.test(second.output_text), second.output_text);
        assertEquals(
          upstreamHistoryCalls(s, type),
          converted
            ? ["multi_agent_v1__spawn", "multi_agent_v1__wait"]
            : ["multi_agent_v1:spawn", "multi_agent_v1:wait"],
        );

        const chosen = await client.responses.create({
          model,
          input: "run it",
          tools: CODEX_TOOLS,
          tool_choice: { type: "function", name: "shell" },
        });
        usages.push(chosen.usage);
        assertEquals(callsOf(chosen.output), [":shell"]);

        // The SDK's stream helper accumulates the same items.
        const helped = await client.responses.stream({
          model,
          input: "spawn two, helped",
          tools: CODEX_TOOLS,
        }).finalResponse();
        usages.push(helped.usage);
        assertEquals(callsOf(helped.output), ["multi_agent_v1:spawn", "multi_agent_v1:wait"]);
      }

      await assertBilledOnce(s, usages);
    },
  );
}

for (const type of ["openai", "anthropic", "gemini"] as const) {
  Deno.test(
    `responses → ${type}: a custom tool is called as a custom_tool_call, streamed or not`,
    serverTest,
    async () => {
      await using s = await setupText();
      const tools: OpenAI.Responses.Tool[] = [
        ...CODEX_TOOLS,
        { type: "custom", name: "apply_patch", description: "Edit files" },
      ];
      const request = {
        model: MODEL_OF[type],
        input: "patch it",
        tools,
        tool_choice: { type: "custom" as const, name: "apply_patch" },
      };
      const usages: Json[] = [];
      for (const client of openaiClients(s)) {
        const answer = await client.responses.create(request);
        usages.push(answer.usage);
        // A Gemini upstream signs the call: its signature comes first, as a reasoning item.
        const withoutSignatures = (output: Json[]) =>
          output.filter((item) => item.type !== "reasoning");
        const [call] = withoutSignatures(answer.output);
        assertEquals([call.type, call.name, typeof call.input], [
          "custom_tool_call",
          "apply_patch",
          "string",
        ]);
        assertEquals(upstreamToolNames(s, type), [...FLAT_NAMES, "apply_patch"]);

        const stream = await client.responses.create({ ...request, stream: true });
        let input: string | undefined;
        let completed: Json;
        for await (const event of stream) {
          if (event.type === "response.custom_tool_call_input.done") input = event.input;
          if (event.type === "response.completed") completed = event.response;
        }
        usages.push(completed.usage);
        assertEquals(withoutSignatures(completed.output)[0].type, "custom_tool_call");
        assertEquals(withoutSignatures(completed.output)[0].input, input);

        const helped = await client.responses.stream(request).finalResponse();
        usages.push(helped.usage);
        assertEquals(withoutSignatures(helped.output)[0].input, input);

        // Codex replays the call and its output; the upstream sees a call of `{input}`.
        const second = await client.responses.create({
          model: MODEL_OF[type],
          tools,
          input: [
            { role: "user", content: "patch it" },
            { type: "custom_tool_call", call_id: call.call_id, name: "apply_patch", input: "P" },
            { type: "custom_tool_call_output", call_id: call.call_id, output: "patched" },
          ],
        });
        usages.push(second.usage);
        assertOk(second.output_text.includes("patched"), second.output_text);
        const history = upstreamHistoryCalls(s, type);
        assertEquals(history, ["apply_patch"]);
      }
      await assertBilledOnce(s, usages);
    },
  );
}

Deno.test(
  "responses: strict fields (header or key) refuse hosted tools on other channels, charge nothing",
  serverTest,
  async () => {
    await using s = await setupText();
    const body = (type: TextChannelType) => ({
      model: MODEL_OF[type],
      input: "search",
      tools: CODEX_TOOLS,
    });
    const strictKey = await s.gw.createKey({ balance: 5_000_000, strict_fields: true });
    const patched = await s.gw.createKey({ balance: 5_000_000 });
    const patch = await s.gw.admin("PATCH", `/admin/keys/${patched.id}`, { strict_fields: true });
    assertEquals([patch.status, patch.body.strict_fields], [200, true]);
    for (const type of ["openai", "anthropic", "gemini"] as const) {
      const attempts: Array<[string, string, Record<string, string>]> = [
        ["header", s.key, { "x-gateway-strict-fields": "true" }],
        ["key", strictKey.key, {}],
        ["patched key", patched.key, {}],
      ];
      for (const [how, key, headers] of attempts) {
        const response = await postJson(s.gw, "/v1/responses", key, body(type), headers);
        const error = (await response.json()).error;
        assertEquals(response.status, 400, `${type} by ${how}`);
        assertEquals(error.code, "unsupported_on_channel");
        assertEquals(error.param, "tools[type=web_search]");
        assertOk(error.message.includes("strict"), error.message);
      }
    }
    assertEquals(s.count("openai") + s.count("anthropic") + s.count("gemini"), 0);
    await assertNothingCharged(s, 100_000_000);
    await assertNothingCharged({ gw: s.gw, keyId: strictKey.id }, 5_000_000);
    await assertNothingCharged({ gw: s.gw, keyId: patched.id }, 5_000_000);

    // A responses channel runs hosted tools, strict or not.
    const passed = await postJson(s.gw, "/v1/responses", strictKey.key, body("openai-responses"));
    assertEquals(passed.status, 200);
    assertEquals(passed.headers.get("x-gateway-ignored-fields"), null);
    await passed.body?.cancel();
  },
);

Deno.test(
  "chat completions simulator refuses hosted tool types as the real API does",
  serverTest,
  async () => {
    await using s = await setupText();
    const response = await fetch(`${s.chat.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer sk-upstream-test", "content-type": "application/json" },
      body: JSON.stringify({
        model: "x",
        messages: [{ role: "user", content: "hi" }],
        tools: [{ type: "web_search" }],
      }),
    });
    const body = await response.json();
    assertEquals(response.status, 400);
    assertEquals(body.error.type, "invalid_request_error");
    assertEquals(body.error.param, "tools[0].type");
    assertOk(body.error.message.includes("'web_search'"), body.error.message);
  },
);
