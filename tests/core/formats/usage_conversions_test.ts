/**
 * Cached-token usage through every pair of formats. Providers count the cache differently:
 * OpenAI (chat `prompt_tokens_details.cached_tokens`, responses
 * `input_tokens_details.cached_tokens`) and Gemini (`cachedContentTokenCount`) report cached
 * tokens as a part of the input; Anthropic reports cache reads and writes beside `input_tokens`.
 * The neutral usage holds all input and the cached part of it, so each token is billed once.
 */

import { assertEquals } from "../../helpers/assert.ts";
import { CODECS } from "../../../core/formats/codecs.ts";
import type { InboundFormat, NeutralUsage, TextFormat } from "../../../core/formats/neutral.ts";
import { textCost } from "../../../core/billing/text_price.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** One cached-heavy answer's usage as each provider reports it: 1,000 input of which 800 cached. */
const REPORTED: Record<InboundFormat, Json> = {
  "openai-chat": {
    prompt_tokens: 1000,
    completion_tokens: 50,
    total_tokens: 1050,
    prompt_tokens_details: { cached_tokens: 800 },
    completion_tokens_details: { reasoning_tokens: 30 },
  },
  "openai-responses": {
    input_tokens: 1000,
    input_tokens_details: { cached_tokens: 800 },
    output_tokens: 50,
    output_tokens_details: { reasoning_tokens: 30 },
    total_tokens: 1050,
  },
  // 150 uncached, 800 read from the cache, 50 written to it: not included in input_tokens.
  anthropic: {
    input_tokens: 150,
    cache_read_input_tokens: 800,
    cache_creation_input_tokens: 50,
    output_tokens: 50,
  },
  gemini: {
    promptTokenCount: 1000,
    cachedContentTokenCount: 800,
    candidatesTokenCount: 20,
    thoughtsTokenCount: 30,
    totalTokenCount: 1050,
  },
};

const FORMATS = Object.keys(REPORTED) as InboundFormat[];

function usageOf(format: TextFormat, usage: Json): NeutralUsage | undefined {
  const answer = format === "gemini" ? { usageMetadata: usage } : { usage };
  return CODECS[format].usageOf(answer);
}

/** The usage a client of `format` reads in an answer the gateway wrote from `usage`. */
function clientUsage(format: TextFormat, usage: NeutralUsage): Json {
  const answer = CODECS[format].encodeResponse({
    id: "x",
    model: "m",
    created: 0,
    parts: [{ type: "text", text: "ok" }],
    stop: "stop",
    usage,
  }, "m");
  return format === "gemini" ? answer.usageMetadata : answer.usage;
}

Deno.test("usage: every format's report reads as 1,000 input, 800 of them cached", () => {
  for (const format of FORMATS) {
    const usage = usageOf(format, REPORTED[format])!;
    assertEquals(
      [usage.input_tokens, usage.cached_input_tokens, usage.output_tokens],
      [1000, 800, 50],
      format,
    );
  }
});

Deno.test("usage: what each client reads, whatever the upstream, says the same", () => {
  for (const upstream of FORMATS) {
    const usage = usageOf(upstream, REPORTED[upstream])!;
    const chat = clientUsage("openai-chat", usage);
    assertEquals(
      [chat.prompt_tokens, chat.prompt_tokens_details.cached_tokens, chat.completion_tokens],
      [1000, 800, 50],
      upstream,
    );
    const responses = clientUsage("openai-responses", usage);
    assertEquals(
      [
        responses.input_tokens,
        responses.input_tokens_details.cached_tokens,
        responses.output_tokens,
      ],
      [1000, 800, 50],
      upstream,
    );
    // Anthropic's own split: input_tokens is the uncached rest.
    const anthropic = clientUsage("anthropic", usage);
    assertEquals(
      [
        anthropic.input_tokens,
        anthropic.cache_read_input_tokens,
        anthropic.cache_creation_input_tokens,
        anthropic.output_tokens,
      ],
      [200, 800, 0, 50],
      upstream,
    );
    const gemini = clientUsage("gemini", usage);
    assertEquals(
      [gemini.promptTokenCount, gemini.cachedContentTokenCount, gemini.totalTokenCount],
      [1000, 800, 1050],
      upstream,
    );
  }
});

Deno.test("usage: a client's reading of the gateway's answer reads back the same (no double count)", () => {
  for (const upstream of FORMATS) {
    const usage = usageOf(upstream, REPORTED[upstream])!;
    for (const client of FORMATS) {
      const back = usageOf(client, clientUsage(client, usage))!;
      assertEquals(
        [back.input_tokens, back.cached_input_tokens, back.output_tokens],
        [1000, 800, 50],
        `${upstream} → ${client}`,
      );
    }
  }
});

Deno.test("usage: billed at the cached price once, the same from every upstream", () => {
  // 200 uncached × 3,000,000 + 800 cached × 300,000 + 50 output × 15,000,000, per million.
  const price = { input: 3_000_000, cached_input: 300_000, output: 15_000_000 };
  for (const format of FORMATS) {
    assertEquals(textCost(price, usageOf(format, REPORTED[format])!), 1590, format);
  }
});

Deno.test("usage: streamed reports are not added up (Anthropic repeats input in message_delta)", () => {
  const anthropic = CODECS.anthropic.streamDecoder();
  anthropic.decode(
    "message_start",
    JSON.stringify({
      type: "message_start",
      message: { id: "m", model: "c", usage: { ...REPORTED.anthropic, output_tokens: 1 } },
    }),
  );
  anthropic.decode(
    "message_delta",
    JSON.stringify({
      type: "message_delta",
      delta: { stop_reason: "end_turn" },
      usage: REPORTED.anthropic,
    }),
  );
  assertEquals(anthropic.usage, {
    input_tokens: 1000,
    cached_input_tokens: 800,
    output_tokens: 50,
  });
  const gemini = CODECS.gemini.streamDecoder();
  for (const usageMetadata of [{ ...REPORTED.gemini, candidatesTokenCount: 5 }, REPORTED.gemini]) {
    gemini.decode(
      undefined,
      JSON.stringify({ candidates: [{ content: { parts: [{ text: "x" }] } }], usageMetadata }),
    );
  }
  assertEquals(gemini.usage, {
    input_tokens: 1000,
    cached_input_tokens: 800,
    output_tokens: 50,
    reasoning_tokens: 30,
  });
});
