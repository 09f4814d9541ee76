/**
 * An answer whose upstream reports no usage is billed from an estimate of its content (text,
 * reasoning, tool arguments at 4 characters a token), never from the JSON around it: the same
 * answer whole and streamed estimates the same output tokens, from every upstream format, through
 * every inbound interface (pass-through and converted).
 */

import { assertEquals } from "../helpers/assert.ts";
import { postJson, serverTest, startTestGateway, TEST_TEXT_PRICE } from "../helpers/gateway.ts";
import { INBOUND } from "../helpers/text_inbound.ts";
import { CHANNEL_TYPES, type TextChannelType } from "../helpers/text_setup.ts";
import { startHostileUpstream } from "../upstream/hostile.ts";
import { CODECS } from "../../core/formats/codecs.ts";
import type { NeutralEvent, NeutralResponse, TextFormat } from "../../core/formats/neutral.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const FORMAT_OF: Record<TextChannelType, TextFormat> = {
  openai: "openai-chat",
  "openai-responses": "openai-responses",
  anthropic: "anthropic",
  gemini: "gemini",
};

/** "Hi" and a tool call: 2 + 16 characters, 5 tokens at 4 characters a token. */
const answer: NeutralResponse = {
  id: "a1",
  model: "up",
  created: 0,
  parts: [
    { type: "text", text: "Hi" },
    { type: "tool_call", id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
  ],
  stop: "tool_calls",
};
const ESTIMATED_OUTPUT_TOKENS = Math.ceil((2 + 16) / 4);

const events: NeutralEvent[] = [
  { type: "start", id: "a1", model: "up" },
  { type: "text", text: "Hi" },
  { type: "tool_call", index: 0, id: "call_1", name: "get_weather", arguments: '{"city":' },
  { type: "tool_call", index: 0, arguments: '"Paris"}' },
  { type: "stop", reason: "tool_calls" },
];

/** The answer as an upstream of `format` sends it whole: no usage, 4 KB of another field. */
function wholeAnswer(format: TextFormat): Json {
  const body = { ...CODECS[format].encodeResponse(answer, "up"), padding: "x".repeat(4096) };
  delete body.usage;
  delete body.usageMetadata;
  return body;
}

/** The same answer as an upstream of `format` streams it, without usage. */
function streamedAnswer(format: TextFormat): string[] {
  const encoder = CODECS[format].streamEncoder("up", { includeUsage: false, framing: "sse" });
  return [...events.map((event) => encoder.encode(event)), encoder.end()].filter(Boolean);
}

Deno.test(
  "an answer without usage estimates the same output tokens whole and streamed, from every upstream format",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    await using hostile = startHostileUpstream({ kind: "json", body: {} });
    for (const type of CHANNEL_TYPES) {
      await gw.putModel(`est-${type}`, { kind: "text", price: TEST_TEXT_PRICE });
      await gw.addChannel({
        name: type,
        type,
        // OpenAI-style base URLs end with /v1, the others do not (the host answers any path).
        base_url: type.startsWith("openai") ? hostile.baseUrl : hostile.baseUrl.slice(0, -3),
        keys: ["upstream-key"],
        models: [`est-${type}`],
      });
    }
    const { key } = await gw.createKey({ balance: 100_000_000 });
    const seen: string[] = [];
    for (const type of CHANNEL_TYPES) {
      const format = FORMAT_OF[type];
      for (const [name, inbound] of Object.entries(INBOUND)) {
        for (const stream of [false, true]) {
          hostile.mode = stream
            ? { kind: "stream", events: streamedAnswer(format) }
            : { kind: "json", body: wholeAnswer(format) };
          const model = `est-${type}`;
          const response = await postJson(
            gw,
            inbound.path(model, stream),
            null,
            inbound.body(model, stream),
            inbound.headers(key),
          );
          assertEquals(response.status, 200, `${name} ← ${type}: ${await response.clone().text()}`);
          await response.text();
          await gw.settle();
          const id = response.headers.get("x-request-id");
          const record = (await gw.admin("GET", `/admin/requests/${id}`)).body;
          seen.push(
            `${name} ← ${type} ${
              stream ? "streamed" : "whole"
            }: ${record.usage_source} ${record.output_tokens}`,
          );
        }
      }
    }
    const expected = seen.map((line) =>
      line.replace(/: .*$/, `: estimate ${ESTIMATED_OUTPUT_TOKENS}`)
    );
    assertEquals(seen, expected);
  },
);

/** `answers` copies of each choice (chat) or candidate (Gemini) of an SSE stream's frames. */
function copiedStream(format: TextFormat, answers: number): string[] {
  const field = format === "gemini" ? "candidates" : "choices";
  return streamedAnswer(format).flatMap((frame) => {
    const data = /^data: (.*)$/m.exec(frame)?.[1];
    if (!data || data === "[DONE]") return [frame];
    const chunk = JSON.parse(data);
    const one = chunk[field]?.[0];
    if (!one) return [frame];
    const copies = Array.from({ length: answers }, (_, index) => ({ ...one, index }));
    // Chat sends one choice a chunk; Gemini every candidate in each chunk.
    return format === "gemini"
      ? [`data: ${JSON.stringify({ ...chunk, [field]: copies })}\r\n\r\n`]
      : copies.map((copy) => `data: ${JSON.stringify({ ...chunk, [field]: [copy] })}\n\n`);
  });
}

Deno.test(
  "several answers without usage (candidateCount, n) estimate every answer, whole and streamed alike",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    await using hostile = startHostileUpstream({ kind: "json", body: {} });
    for (const type of ["openai", "gemini"] as const) {
      await gw.putModel(`est-${type}`, { kind: "text", price: TEST_TEXT_PRICE });
      await gw.addChannel({
        name: type,
        type,
        base_url: type === "openai" ? hostile.baseUrl : hostile.baseUrl.slice(0, -3),
        keys: ["upstream-key"],
        models: [`est-${type}`],
      });
    }
    const { key } = await gw.createKey({ balance: 100_000_000 });
    const cases = [
      ["openai", INBOUND.chat, { n: 3 }],
      ["gemini", INBOUND["generate-content"], { generationConfig: { candidateCount: 3 } }],
    ] as const;
    for (const [type, inbound, extra] of cases) {
      const format = FORMAT_OF[type];
      const field = format === "gemini" ? "candidates" : "choices";
      for (const stream of [false, true]) {
        const whole = wholeAnswer(format);
        whole[field] = [0, 1, 2].map((index) => ({ ...whole[field][0], index }));
        hostile.mode = stream
          ? { kind: "stream", events: copiedStream(format, 3) }
          : { kind: "json", body: whole };
        const model = `est-${type}`;
        const response = await postJson(
          gw,
          inbound.path(model, stream),
          null,
          inbound.body(model, stream, extra),
          inbound.headers(key),
        );
        assertEquals(response.status, 200, await response.clone().text());
        await response.text();
        await gw.settle();
        const id = response.headers.get("x-request-id");
        const record = (await gw.admin("GET", `/admin/requests/${id}`)).body;
        assertEquals(
          [record.usage_source, record.output_tokens],
          ["estimate", Math.ceil(3 * (2 + 16) / 4)],
          `${type} ${stream ? "streamed" : "whole"}`,
        );
      }
    }
  },
);
