/**
 * Upstream errors reach every inbound interface in its own envelope and status, including errors
 * inside a stream (each format's in-stream error event), and cost nothing. Ignored fields are
 * named; requests a channel cannot serve get a 400 that says where to go instead.
 */

import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import {
  CHANNEL_TYPES,
  setupText,
  type TextChannelType,
  type TextSetup,
} from "../helpers/text_setup.ts";
import { INBOUND, type Inbound, send } from "../helpers/text_inbound.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

function refuse(s: TextSetup, type: TextChannelType) {
  const fault = { kind: "status" as const, status: 400, message: "simulated bad request" };
  if (type === "openai") s.chat.faults.push(fault);
  if (type === "openai-responses") s.responses.faults.push(fault);
  if (type === "anthropic") s.anthropic.faults.push(fault);
  if (type === "gemini") s.gemini.faults.push(fault);
}

function breakStream(
  s: TextSetup,
  type: TextChannelType,
  kind: "in_stream_error" | "die_mid_stream",
) {
  if (type === "openai") s.chat.faults.push({ kind, afterChunks: 2 });
  if (type === "openai-responses") s.responses.faults.push({ kind, afterFrames: 4 });
  if (type === "anthropic") s.anthropic.faults.push({ kind, afterFrames: 4 });
  if (type === "gemini") s.gemini.faults.push({ kind, afterFrames: 1 });
}

for (const [name, inbound] of Object.entries(INBOUND)) {
  Deno.test(
    `${name}: upstream errors in its own envelope from every channel type, no charge`,
    serverTest,
    async () => {
      await using s = await setupText();
      for (const type of CHANNEL_TYPES) {
        refuse(s, type);
        const refused = await send(s, inbound, type, false);
        const body = await refused.json();
        assertEquals(refused.status, 400, `${name} ← ${type}`);
        assertOk(inbound.errorOf(body)?.includes("simulated bad request"), JSON.stringify(body));

        for (const kind of ["in_stream_error", "die_mid_stream"] as const) {
          breakStream(s, type, kind);
          const broken = await send(s, inbound, type, true);
          assertEquals(broken.status, 200);
          const text = await broken.text();
          assertOk(inbound.streamError(text), `${name} ← ${type} (${kind}): ${text.slice(-300)}`);
        }
      }
      await s.gw.settle();
      const moves = (await s.gw.ledger(s.keyId)).filter((entry) => entry.type !== "credit");
      assertEquals(
        moves.filter((entry) => entry.type === "settle" || entry.type === "charge"),
        [],
      );
      await assertNothingCharged(s, 100_000_000);
    },
  );
}

Deno.test(
  "ignored fields are dropped and named in x-gateway-ignored-fields",
  serverTest,
  async () => {
    await using s = await setupText();
    const chatToAnthropic = await send(s, INBOUND.chat, "anthropic", false, {
      seed: 7,
      logprobs: true,
      temperature: 0.5,
    });
    assertEquals(chatToAnthropic.status, 200);
    assertEquals(chatToAnthropic.headers.get("x-gateway-ignored-fields"), "seed,logprobs");
    await chatToAnthropic.body?.cancel();
    assertEquals(s.lastBody("anthropic").temperature, 0.5);
    assertEquals(s.lastBody("anthropic").seed, undefined);

    const messagesToChat = await send(s, INBOUND.messages, "openai", false, { top_k: 5 });
    assertEquals(messagesToChat.headers.get("x-gateway-ignored-fields"), "top_k");
    await messagesToChat.body?.cancel();

    const passThrough = await send(s, INBOUND.chat, "openai", false, { logprobs: true });
    assertEquals(passThrough.headers.get("x-gateway-ignored-fields"), null);
    await passThrough.body?.cancel();
    assertEquals(s.lastBody("openai").logprobs, true);

    // Same format in and out: every field reaches the upstream as sent, but the model name.
    const messages = await send(s, INBOUND.messages, "anthropic", false, {
      service_tier: "standard_only",
      metadata: { user_id: "u-1" },
    });
    await messages.body?.cancel();
    assertEquals(s.lastBody("anthropic").service_tier, "standard_only");
    assertEquals(s.lastBody("anthropic").model, "m-anthropic-upstream");
    const gemini = await send(s, INBOUND["generate-content"], "gemini", false, {
      safetySettings: [{ category: "HARM_CATEGORY_HATE_SPEECH", threshold: "BLOCK_NONE" }],
    });
    await gemini.body?.cancel();
    assertEquals(s.lastBody("gemini").safetySettings, [
      { category: "HARM_CATEGORY_HATE_SPEECH", threshold: "BLOCK_NONE" },
    ]);
  },
);

Deno.test(
  "a request that needs its own kind of upstream gets a 400 naming the interface to use",
  serverTest,
  async () => {
    await using s = await setupText();
    const cases: Array<[Inbound, TextChannelType, Json, string]> = [
      [INBOUND.messages, "openai", {
        tools: [{ type: "web_search_20250305", name: "web_search" }],
      }, "tools[type=web_search_20250305]"],
      [
        INBOUND["generate-content"],
        "anthropic",
        { tools: [{ googleSearch: {} }] },
        "tools[googleSearch]",
      ],
      [INBOUND.chat, "gemini", { n: 2 }, "n"],
      // Several answers are billed as such only where the upstream reports them all.
      [
        INBOUND["generate-content"],
        "openai",
        { generationConfig: { candidateCount: 2 } },
        "generationConfig.candidateCount",
      ],
      // Responses hosted tools are dropped unless strict: tests/e2e/responses_tools_test.ts.
    ];
    for (const [inbound, type, extra, param] of cases) {
      const response = await send(s, inbound, type, false, extra);
      const body = await response.json();
      assertEquals(response.status, 400, param);
      assertOk(inbound.errorOf(body)?.includes("instead"), JSON.stringify(body));
    }
    assertEquals(
      CHANNEL_TYPES.reduce((n, type) => n + s.count(type), 0),
      0,
    );
    await assertNothingCharged(s, 100_000_000);
  },
);

Deno.test(
  "malformed text requests: a 400 in each interface's envelope, no upstream call, no charge",
  serverTest,
  async () => {
    await using s = await setupText();
    const cases: Array<[Inbound, Json, string]> = [
      [INBOUND.chat, { messages: [] }, "messages"],
      [INBOUND.chat, { messages: [{ role: "robot", content: "hi" }] }, "messages.0.role"],
      [INBOUND.responses, { input: undefined }, "input"],
      [INBOUND.responses, { input: 42 }, "input"],
      [INBOUND.messages, { max_tokens: 0 }, "max_tokens"],
      [INBOUND.messages, { messages: [{ role: "user", content: 7 }] }, "messages.0.content"],
      [INBOUND["generate-content"], { contents: [] }, "contents"],
      [
        INBOUND["generate-content"],
        { contents: [{ role: "user", parts: [] }] },
        "contents.0.parts",
      ],
    ];
    for (const [inbound, extra, field] of cases) {
      for (const type of CHANNEL_TYPES) {
        const response = await send(s, inbound, type, false, extra);
        const body = await response.json();
        assertEquals(response.status, 400, `${field} → ${type}`);
        assertOk(inbound.errorOf(body)?.includes(field.split(".")[0]), JSON.stringify(body));
      }
    }
    const unknown = await send(s, INBOUND.messages, "anthropic", false, {
      model: "no-such-model",
    });
    assertEquals(unknown.status, 404);
    assertEquals((await unknown.json()).error.type, "not_found_error");
    assertEquals(CHANNEL_TYPES.reduce((n, type) => n + s.count(type), 0), 0);
    await assertNothingCharged(s, 100_000_000, { untouched: true });
  },
);
