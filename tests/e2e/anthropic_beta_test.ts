/**
 * `anthropic-beta`, `anthropic-version` and `?beta=true` end to end, with @anthropic-ai/sdk as
 * Claude Code uses it: what reaches an anthropic upstream on pass-through and after a conversion,
 * the channel's default version and beta allow/deny lists, removed betas named in
 * `x-gateway-ignored-fields`, beta-only fields named on converted channels, a refusal the strict
 * simulator gives for a denied beta, and every request billed exactly once.
 */

import Anthropic from "@anthropic-ai/sdk";
import Anthropic1 from "@anthropic-ai/sdk1";
import OpenAI from "openai";
import { assertNothingCharged, requestsBilled } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { postJson, serverTest } from "../helpers/gateway.ts";
import { MODEL_OF, setupText, type TextSetup } from "../helpers/text_setup.ts";
import type { AnthropicRecordedRequest } from "../upstream/anthropic.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const CONTEXT_MANAGEMENT = "context-management-2025-06-27";
const INTERLEAVED = "interleaved-thinking-2025-05-14";
/** The betas Claude Code 2.1 sends on every messages call. */
const CLAUDE_CODE_BETAS = [
  "claude-code-20250219",
  "oauth-2025-04-20",
  CONTEXT_MANAGEMENT,
  INTERLEAVED,
  "prompt-caching-scope-2026-01-05",
  "structured-outputs-2025-11-13",
  "fine-grained-tool-streaming-2025-05-14",
];
const EDITS = { edits: [{ type: "clear_tool_uses_20250919" }] };
const OPENING = 100_000_000;

function sdk(s: TextSetup, options: { defaultHeaders?: Record<string, string> } = {}) {
  return new Anthropic({ apiKey: s.key, baseURL: s.gw.url, maxRetries: 0, ...options });
}

function lastAnthropicRequest(s: TextSetup): AnthropicRecordedRequest {
  return s.anthropic.requests.at(-1)!;
}

async function anthropicChannelPath(s: TextSetup): Promise<string> {
  const channels = (await s.gw.admin("GET", "/admin/channels")).body.data;
  return `/admin/channels/${channels.find((channel: Json) => channel.type === "anthropic").id}`;
}

async function patchAnthropicChannel(s: TextSetup, patch: Record<string, unknown>) {
  const answer = await s.gw.admin("PATCH", await anthropicChannelPath(s), patch);
  assertEquals(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

/** A message request with a beta-only field, as Claude Code sends it. */
function betaRequest(model: string) {
  return {
    model,
    max_tokens: 256,
    messages: [{ role: "user" as const, content: "hello" }],
    context_management: EDITS,
  };
}

/** The cost at TEST_TEXT_PRICE of a messages usage object (cache reads at half price). */
function messagesCost(usage: Json): number {
  return Math.ceil(
    usage.input_tokens + (usage.cache_read_input_tokens ?? 0) * 0.5 + usage.output_tokens * 2,
  );
}

/** The usage of a messages event stream, read to its end. */
async function streamUsage(stream: unknown): Promise<Json> {
  let usage: Json = {};
  for await (const event of stream as AsyncIterable<Json>) {
    if (event.type === "message_start") usage = { ...event.message.usage };
    // message_delta's usage is cumulative: what it names replaces message_start's.
    if (event.type === "message_delta") usage = { ...usage, ...event.usage };
  }
  return usage;
}

/** The SDK's 400 for `call`, with the Anthropic envelope's `error` object; fails otherwise. */
async function badRequestOf(call: Promise<unknown>): Promise<{ type: string; message: string }> {
  const refused = await call.then(() => null, (error) => error);
  assertOk(refused instanceof Anthropic.BadRequestError, `expected a 400, got ${refused}`);
  const envelope = refused.error as Json;
  assertEquals(envelope?.type, "error", JSON.stringify(envelope));
  return envelope.error;
}

/**
 * Asserts that the key paid exactly `costs`, one debit (a share of an aggregated charge, or a settle) per
 * billed request, and that its ledger adds up.
 */
async function assertBilledOnceEach(s: TextSetup, costs: number[]) {
  await s.gw.settle();
  const balance = await s.gw.assertLedgerInvariant(s.keyId);
  const entries = await s.gw.ledger(s.keyId);
  assertEquals(requestsBilled(entries), costs.length, JSON.stringify(entries));
  const total = costs.reduce((sum, cost) => sum + cost, 0);
  assertEquals(OPENING - balance, total, `paid ${OPENING - balance}, the answers cost ${total}`);
}

Deno.test(
  "anthropic-beta pass-through: the SDK's betas, version and ?beta=true reach the upstream on create, stream and countTokens; billed once each",
  serverTest,
  async () => {
    await using s = await setupText({ balance: OPENING });
    const model = MODEL_OF.anthropic;
    const client = sdk(s);
    const costs: number[] = [];

    const made = await client.beta.messages.create({
      ...betaRequest(model),
      betas: [CONTEXT_MANAGEMENT, INTERLEAVED],
    } as Json);
    costs.push(messagesCost(made.usage));
    let seen = lastAnthropicRequest(s);
    assertEquals(seen.path, "/v1/messages");
    assertEquals(seen.search, "?beta=true");
    assertEquals(seen.betas, [CONTEXT_MANAGEMENT, INTERLEAVED]);
    assertEquals(seen.version, "2023-06-01");
    assertEquals(seen.body.context_management, EDITS);

    const streamed = await client.beta.messages.stream({
      ...betaRequest(model),
      betas: [CONTEXT_MANAGEMENT],
    } as Json).finalMessage();
    costs.push(messagesCost(streamed.usage));
    seen = lastAnthropicRequest(s);
    assertEquals([seen.search, seen.betas, seen.body.stream], [
      "?beta=true",
      [CONTEXT_MANAGEMENT],
      true,
    ]);

    const counted = await client.beta.messages.countTokens({
      model,
      messages: [{ role: "user", content: "count these words" }],
      context_management: EDITS,
      betas: [CONTEXT_MANAGEMENT],
    } as Json);
    assertOk(counted.input_tokens > 0);
    seen = lastAnthropicRequest(s);
    assertEquals(seen.path, "/v1/messages/count_tokens");
    assertEquals(seen.search, "?beta=true");
    // The SDK adds the token-counting beta of its own.
    assertEquals(seen.betas.toSorted(), [CONTEXT_MANAGEMENT, "token-counting-2024-11-01"]);

    // Plain messages.create with the beta in defaultHeaders (no ?beta=true), SDK 0.x and 1.x.
    const headers = { "anthropic-beta": `${CONTEXT_MANAGEMENT},${INTERLEAVED}` };
    const plain = await sdk(s, { defaultHeaders: headers }).messages.create(
      betaRequest(model) as Json,
    );
    costs.push(messagesCost(plain.usage));
    seen = lastAnthropicRequest(s);
    assertEquals([seen.search, seen.betas], ["", [CONTEXT_MANAGEMENT, INTERLEAVED]]);
    const one = new Anthropic1({
      apiKey: s.key,
      baseURL: s.gw.url,
      maxRetries: 0,
      defaultHeaders: headers,
    }) as unknown as Anthropic;
    const fromOne = await one.messages.stream(betaRequest(model) as Json).finalMessage();
    costs.push(messagesCost(fromOne.usage));
    seen = lastAnthropicRequest(s);
    assertEquals(seen.betas, [CONTEXT_MANAGEMENT, INTERLEAVED]);
    assertEquals(seen.version, "2026-10-21", "SDK 1.x's own anthropic-version is forwarded");

    assertEquals(s.anthropic.requests.length, 5);
    await assertBilledOnceEach(s, costs);
  },
);

Deno.test(
  "anthropic-version: the client's is forwarded, else the channel's anthropic_version, else 2023-06-01; an openai-chat client sends betas only if it sent them",
  serverTest,
  async () => {
    await using s = await setupText({ balance: OPENING });
    const model = MODEL_OF.anthropic;
    const body = {
      model,
      max_tokens: 50,
      messages: [{ role: "user", content: "hi" }],
    };
    const send = async (headers: Record<string, string>) => {
      const response = await postJson(s.gw, "/v1/messages", s.key, body, headers);
      assertEquals(response.status, 200, await response.clone().text());
      await response.body?.cancel();
      return lastAnthropicRequest(s);
    };
    assertEquals((await send({})).version, "2023-06-01");

    const channel = await patchAnthropicChannel(s, { anthropic_version: "2025-05-05" });
    assertEquals(channel.anthropic_version, "2025-05-05");
    assertEquals((await send({})).version, "2025-05-05");
    assertEquals((await send({ "anthropic-version": "2026-10-21" })).version, "2026-10-21");
    assertEquals((await send({ "vendor-version": "2024-04-04" })).version, "2024-04-04");

    // Converted: an OpenAI chat client on the anthropic channel.
    const chat = new OpenAI({ apiKey: s.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
    await chat.chat.completions.create({ model, messages: [{ role: "user", content: "hi" }] });
    let seen = lastAnthropicRequest(s);
    assertEquals([seen.version, seen.betas, seen.search], ["2025-05-05", [], ""]);
    assertEquals("anthropic-beta" in seen.headers, false);
    await chat.chat.completions.create(
      { model, messages: [{ role: "user", content: "hi" }], stream: false },
      { headers: { "anthropic-beta": INTERLEAVED } },
    );
    seen = lastAnthropicRequest(s);
    assertEquals(seen.betas, [INTERLEAVED], "a beta the chat client sent is forwarded");
  },
);

Deno.test(
  "anthropic_betas: the allow and deny lists filter Claude Code's betas on messages (stream and not) and count_tokens, and name each removed value",
  serverTest,
  async () => {
    await using s = await setupText({ balance: OPENING });
    const model = MODEL_OF.anthropic;
    await patchAnthropicChannel(s, {
      anthropic_betas: {
        allow: ["claude-code-*", "context-management-*", INTERLEAVED, "fine-grained-*"],
        deny: ["fine-grained-tool-streaming-2025-05-14"],
      },
    });
    const kept = ["claude-code-20250219", CONTEXT_MANAGEMENT, INTERLEAVED];
    const removed = [
      "oauth-2025-04-20",
      "prompt-caching-scope-2026-01-05",
      "structured-outputs-2025-11-13",
      "fine-grained-tool-streaming-2025-05-14",
    ];
    const named = removed.map((beta) => `anthropic-beta=${beta}`).join(",");
    const client = sdk(s);
    const costs: number[] = [];

    const { data: made, response } = await client.beta.messages.create({
      ...betaRequest(model),
      betas: CLAUDE_CODE_BETAS,
    } as Json).withResponse();
    costs.push(messagesCost(made.usage));
    assertEquals(response.headers.get("x-gateway-ignored-fields"), named);
    assertEquals(lastAnthropicRequest(s).betas, kept);

    const { data: stream, response: streamResponse } = await client.beta.messages.create({
      ...betaRequest(model),
      stream: true,
      betas: CLAUDE_CODE_BETAS,
    } as Json).withResponse();
    costs.push(messagesCost(await streamUsage(stream)));
    assertEquals(streamResponse.headers.get("x-gateway-ignored-fields"), named);
    assertEquals(lastAnthropicRequest(s).betas, kept);

    // Claude Code's raw form: two anthropic-beta headers, ?beta=true.
    const twoHeaders = new Headers({ "x-api-key": s.key, "content-type": "application/json" });
    twoHeaders.append("anthropic-beta", CLAUDE_CODE_BETAS.slice(0, 3).join(","));
    twoHeaders.append("anthropic-beta", CLAUDE_CODE_BETAS.slice(3).join(","));
    const raw = await fetch(`${s.gw.url}/v1/messages/count_tokens?beta=true`, {
      method: "POST",
      headers: twoHeaders,
      body: JSON.stringify({
        model,
        messages: [{ role: "user", content: "count" }],
        context_management: EDITS,
      }),
    });
    assertEquals(raw.status, 200, await raw.clone().text());
    assertOk((await raw.json()).input_tokens > 0);
    assertEquals(raw.headers.get("x-gateway-token-count"), "upstream");
    assertEquals(raw.headers.get("x-gateway-ignored-fields"), named);
    assertEquals(lastAnthropicRequest(s).betas, kept);

    await assertBilledOnceEach(s, costs);
  },
);

Deno.test(
  "anthropic_betas: a denied beta the body needs gives the client the upstream's 400 in Anthropic's envelope, naming the removed beta; nothing charged",
  serverTest,
  async () => {
    await using s = await setupText({ balance: OPENING });
    const model = MODEL_OF.anthropic;
    await patchAnthropicChannel(s, { anthropic_betas: { deny: ["context-management-*"] } });
    const client = sdk(s);
    for (const stream of [false, true]) {
      const { type, message } = await badRequestOf(client.beta.messages.create({
        ...betaRequest(model),
        stream,
        betas: [CONTEXT_MANAGEMENT, INTERLEAVED],
      } as Json));
      assertEquals(type, "invalid_request_error", `stream ${stream}`);
      assertOk(message.includes("context_management: Extra inputs are not permitted"), message);
      assertOk(message.includes(`anthropic-beta=${CONTEXT_MANAGEMENT}`), message);
      assertEquals(lastAnthropicRequest(s).betas, [INTERLEAVED]);
    }
    assertEquals(s.anthropic.requests.length, 2);
    await s.gw.settle();
    await assertNothingCharged(s, OPENING);
  },
);

Deno.test(
  "simulator: a beta-only field without its anthropic-beta is a 400 'Extra inputs are not permitted'; output_config.format needs no beta",
  serverTest,
  async () => {
    await using s = await setupText();
    const upstream = new Anthropic({
      apiKey: "sk-ant-upstream-test",
      baseURL: s.anthropic.baseUrl,
      maxRetries: 0,
    });
    for (
      const [field, value] of [
        ["context_management", EDITS],
        ["output_format", { type: "json_schema", schema: { type: "object" } }],
        ["mcp_servers", [{ type: "url", url: "https://mcp.example", name: "m" }]],
      ] as const
    ) {
      const refused = await badRequestOf(upstream.messages.create({
        model: "m",
        max_tokens: 10,
        messages: [{ role: "user", content: "hi" }],
        [field]: value,
      } as Json));
      assertEquals(refused, {
        type: "invalid_request_error",
        message: `${field}: Extra inputs are not permitted`,
      });
    }
    const structured = await upstream.messages.create({
      model: "m",
      max_tokens: 10,
      messages: [{ role: "user", content: "hi" }],
      output_config: { format: { type: "json_schema", schema: { type: "object" } } },
    } as Json);
    assertEquals(structured.type, "message");
  },
);

for (const type of ["openai", "openai-responses", "gemini"] as const) {
  Deno.test(
    `anthropic-beta converted (messages → ${type}): beta-only fields are named in x-gateway-ignored-fields, betas go nowhere; billed once each`,
    serverTest,
    async () => {
      await using s = await setupText({ balance: OPENING });
      const model = MODEL_OF[type];
      const client = sdk(s);
      const costs: number[] = [];
      const { data: made, response } = await client.beta.messages.create({
        ...betaRequest(model),
        betas: CLAUDE_CODE_BETAS,
      } as Json).withResponse();
      costs.push(messagesCost(made.usage));
      assertEquals(response.headers.get("x-gateway-ignored-fields"), "context_management");
      assertEquals(s.count(type), 1);
      assertEquals("context_management" in s.lastBody(type), false);
      // No provider but anthropic's sends the hints: tests/core/providers/anthropic_hints_test.ts.

      const { data: stream, response: streamResponse } = await client.beta.messages.create({
        ...betaRequest(model),
        stream: true,
        betas: CLAUDE_CODE_BETAS,
      } as Json).withResponse();
      costs.push(messagesCost(await streamUsage(stream)));
      assertEquals(streamResponse.headers.get("x-gateway-ignored-fields"), "context_management");

      // Fields that need Anthropic's servers stay a 400 that names them; nothing is charged.
      const refused = await badRequestOf(client.beta.messages.create({
        ...betaRequest(model),
        mcp_servers: [{ type: "url", url: "https://mcp.example", name: "m" }],
        betas: ["mcp-client-2025-04-04"],
      } as Json));
      assertOk(refused.message.includes("mcp_servers"), refused.message);

      assertEquals(s.count(type), 2);
      assertEquals(s.anthropic.requests.length, 0);
      await assertBilledOnceEach(s, costs);
    },
  );
}

Deno.test(
  "admin channels: anthropic_betas entries with '*' inside, spaces or commas are a 400",
  serverTest,
  async () => {
    await using s = await setupText();
    const path = await anthropicChannelPath(s);
    for (
      const bad of [
        { anthropic_betas: { allow: ["context-*-27"] } },
        { anthropic_betas: { deny: ["a,b"] } },
        { anthropic_betas: { allow: ["x"], other: [] } },
        { anthropic_version: "2023 06 01" },
      ]
    ) {
      const answer = await s.gw.admin("PATCH", path, bad);
      assertEquals(answer.status, 400, `${JSON.stringify(bad)}: ${JSON.stringify(answer.body)}`);
    }
    const channel = (await s.gw.admin("GET", path)).body;
    assertEquals([channel.anthropic_betas, channel.anthropic_version], [undefined, undefined]);
  },
);
