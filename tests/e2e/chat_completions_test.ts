import OpenAI7 from "openai7";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import { MODEL, setupChat, testCost, UPSTREAM_MODEL } from "../helpers/text_setup.ts";
import { simulatedUsage } from "../upstream/openai_chat.ts";

const weatherTools = [
  {
    type: "function" as const,
    function: {
      name: "get_weather",
      parameters: { type: "object", properties: { city: { type: "string" } } },
    },
  },
  {
    type: "function" as const,
    function: {
      name: "get_time",
      parameters: { type: "object", properties: { city: { type: "string" } } },
    },
  },
];

Deno.test(
  "chat non-stream: answer, public model name, mapped upstream model, exact bill",
  serverTest,
  async () => {
    await using s = await setupChat();
    const answer = await s.client.chat.completions.create({
      model: MODEL,
      messages: [{ role: "system", content: "Be brief." }, {
        role: "user",
        content: "hello gateway",
      }],
    });
    assertEquals(answer.choices[0].message.content, "Echo: hello gateway");
    assertEquals(answer.model, MODEL);
    assertEquals(s.upstream.requests[0].body.model, UPSTREAM_MODEL);
    assertEquals(s.upstream.requests[0].authorization, "Bearer sk-upstream-test");
    const balance = await s.gw.assertLedgerInvariant(s.keyId);
    assertEquals(balance, 10_000_000 - testCost(answer.usage!));
    const types = (await s.gw.ledger(s.keyId)).map((entry) => entry.type);
    assertEquals(types, ["credit", "lease", "charge", "lease_return"]);
  },
);

Deno.test(
  "chat stream without include_usage: usage asked upstream, hidden from client, billed exactly",
  serverTest,
  async () => {
    await using s = await setupChat();
    const stream = await s.client.chat.completions.create({
      model: MODEL,
      stream: true,
      messages: [{ role: "user", content: "stream this please" }],
    });
    let text = "";
    const chunks = [];
    for await (const chunk of stream) {
      chunks.push(chunk);
      text += chunk.choices[0]?.delta?.content ?? "";
    }
    assertEquals(text, "Echo: stream this please");
    assertOk(chunks.every((chunk) => !("usage" in chunk)), "a chunk carried usage");
    assertOk(chunks.every((chunk) => chunk.choices.length === 1));
    assertEquals(chunks[0].choices[0].delta.role, "assistant");
    assertEquals(chunks.at(-1)!.model, MODEL);
    const upstreamBody = s.upstream.requests[0].body as {
      stream_options?: { include_usage?: boolean };
    };
    assertEquals(upstreamBody.stream_options?.include_usage, true);
    const usage = simulatedUsage([{ role: "user", content: "stream this please" }], text.length);
    assertEquals(await s.gw.assertLedgerInvariant(s.keyId), 10_000_000 - testCost(usage));
  },
);

Deno.test(
  "chat stream with include_usage: the client gets the usage chunk before [DONE]",
  serverTest,
  async () => {
    await using s = await setupChat({ upstream: { cachedTokens: 4 } });
    const stream = await s.client.chat.completions.create({
      model: MODEL,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: "count my tokens, including cached ones" }],
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const last = chunks.at(-1)!;
    assertEquals(last.choices, []);
    assertOk(last.usage && last.usage.prompt_tokens > 0);
    assertEquals(last.usage!.prompt_tokens_details?.cached_tokens, 4);
    assertOk(chunks.slice(0, -1).every((chunk) => chunk.usage === null));
    assertEquals(await s.gw.assertLedgerInvariant(s.keyId), 10_000_000 - testCost(last.usage!));
  },
);

Deno.test(
  "chat stream with several tool calls: the stream() helper assembles both calls",
  serverTest,
  async () => {
    await using s = await setupChat();
    const runner = s.client.chat.completions.stream({
      model: MODEL,
      messages: [{ role: "user", content: "weather and time in two cities" }],
      tools: weatherTools,
    });
    const final = await runner.finalChatCompletion();
    const calls = final.choices[0].message.tool_calls!;
    assertEquals(final.choices[0].finish_reason, "tool_calls");
    assertEquals(calls.length, 2);
    assertEquals(calls.map((call) => call.type === "function" && call.function.name), [
      "get_weather",
      "get_time",
    ]);
    for (const [index, call] of calls.entries()) {
      assertOk(call.type === "function");
      assertEquals(JSON.parse(call.function.arguments), {
        city: `City ${index}`,
        unit: "celsius",
        index,
      });
    }
    await s.gw.assertLedgerInvariant(s.keyId);
  },
);

Deno.test(
  "chat non-stream with tools: tool calls and finish_reason pass through",
  serverTest,
  async () => {
    await using s = await setupChat();
    const answer = await s.client.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "use tools" }],
      tools: weatherTools,
    });
    assertEquals(answer.choices[0].finish_reason, "tool_calls");
    assertEquals(answer.choices[0].message.tool_calls?.length, 2);
  },
);

Deno.test("chat with the openai 7.x SDK: create and stream", serverTest, async () => {
  await using s = await setupChat();
  const client = new OpenAI7({ apiKey: s.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
  const answer = await client.chat.completions.create({
    model: MODEL,
    messages: [{ role: "user", content: "seven" }],
  });
  assertEquals(answer.choices[0].message.content, "Echo: seven");
  const runner = client.chat.completions.stream({
    model: MODEL,
    messages: [{ role: "user", content: "seven stream" }],
  });
  const final = await runner.finalChatCompletion();
  assertEquals(final.choices[0].message.content, "Echo: seven stream");
  await s.gw.assertLedgerInvariant(s.keyId);
});

Deno.test(
  "chat responses carry x-request-id and the request is logged without prompt text",
  serverTest,
  async () => {
    await using s = await setupChat();
    const { data, response } = await s.client.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "a secret prompt" }],
    }).withResponse();
    const requestId = response.headers.get("x-request-id")!;
    assertOk(requestId.startsWith("req_"));
    await s.gw.settle();
    const logs = (await s.gw.admin("GET", "/admin/requests?limit=100")).body.data;
    const entry = logs.find((log: { id: string }) => log.id === requestId);
    assertEquals(entry.key_id, s.keyId);
    assertEquals(entry.model, MODEL);
    assertEquals(entry.status, 200);
    assertEquals(entry.output_tokens, data.usage!.completion_tokens);
    assertEquals(entry.cost, testCost(data.usage!));
    assertOk(!JSON.stringify(logs).includes("secret prompt"));
  },
);

Deno.test(
  "chat on a key without limit: one charge entry on success, nothing written on failure",
  serverTest,
  async () => {
    await using s = await setupChat({ balance: 0, key: { unlimited: true } });
    const answer = await s.client.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "charge me once" }],
    });
    s.upstream.fault = { kind: "status", status: 400 };
    const failed = await s.client.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "this one fails" }],
    }).then(() => null, (error) => error);
    assertEquals(failed?.status, 400);
    assertEquals(await s.gw.assertLedgerInvariant(s.keyId), -testCost(answer.usage!));
    const entries = await s.gw.ledger(s.keyId);
    assertEquals(entries.map((entry) => entry.type), ["charge"]);
    assertEquals(entries[0].cost, testCost(answer.usage!));
  },
);
