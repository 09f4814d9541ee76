/**
 * Requests for several answers at once — Gemini `candidateCount`, chat `n` — are billed for
 * every answer, streamed or not: the upstream reports the output of all of them, the hold covers
 * all of them, and the ledger takes what the receipt says.
 */

import OpenAI from "openai";
import { GoogleGenAI } from "@google/genai";
import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { postJson, serverTest } from "../helpers/gateway.ts";
import { MODEL_OF, setupText, type TextSetup } from "../helpers/text_setup.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Long enough that every answer is cut at 100 output tokens (the simulators echo it). */
const PROMPT = "Tell me everything about the weather in every city you know. ".repeat(10);

/** TEST_TEXT_PRICE: 1 unit an input token, 0.5 a cached one, 2 an output token. */
function cost(usage: { input: number; cached: number; output: number }): number {
  return Math.ceil(usage.input - usage.cached + usage.cached * 0.5 + usage.output * 2);
}

/** The balance taken by the request `run` makes, and that request's log record. */
async function billed(
  s: TextSetup,
  run: () => Promise<void>,
): Promise<{ taken: number; record: Json }> {
  await s.gw.settle();
  const before = await s.gw.balance(s.keyId);
  await run();
  await s.gw.settle();
  const after = await s.gw.assertLedgerInvariant(s.keyId);
  const records = (await s.gw.admin("GET", `/admin/requests?key=${s.keyId}&limit=1`)).body.data;
  return { taken: before - after, record: records[0] };
}

Deno.test(
  "generateContent with candidateCount 8 is billed for every candidate, streamed or not",
  serverTest,
  async () => {
    await using s = await setupText();
    const ai = new GoogleGenAI({ apiKey: s.key, httpOptions: { baseUrl: s.gw.url } });
    const config = { candidateCount: 8, maxOutputTokens: 100 };
    const model = MODEL_OF.gemini;

    let usage: Json;
    const whole = await billed(s, async () => {
      const answer = await ai.models.generateContent({ model, contents: PROMPT, config });
      assertEquals(answer.candidates?.length, 8);
      usage = answer.usageMetadata;
    });
    assertEquals(usage.candidatesTokenCount, 800, "100 tokens for each of 8 candidates");
    const expected = cost({
      input: usage.promptTokenCount,
      cached: usage.cachedContentTokenCount ?? 0,
      output: usage.candidatesTokenCount,
    });
    assertEquals(whole.record.output_tokens, 800);
    assertEquals(whole.record.receipt.amount, expected);
    assertEquals(whole.taken, expected, "the ledger takes what the receipt says");

    const streamed = await billed(s, async () => {
      let candidates = 0;
      for await (
        const chunk of await ai.models.generateContentStream({ model, contents: PROMPT, config })
      ) {
        candidates = Math.max(candidates, chunk.candidates?.length ?? 0);
        if (chunk.usageMetadata?.candidatesTokenCount) usage = chunk.usageMetadata;
      }
      assertEquals(candidates, 8);
    });
    assertEquals(streamed.record.output_tokens, 800);
    assertEquals(streamed.record.receipt.amount, expected);
    assertEquals(streamed.taken, expected);
  },
);

Deno.test(
  "chat completions with n 3 are billed for every choice, streamed or not",
  serverTest,
  async () => {
    await using s = await setupText();
    const client = new OpenAI({ apiKey: s.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
    const request = {
      model: MODEL_OF.openai,
      messages: [{ role: "user" as const, content: PROMPT }],
      n: 3,
      max_tokens: 100,
    };
    let usage: Json;
    const whole = await billed(s, async () => {
      const answer = await client.chat.completions.create(request);
      assertEquals(answer.choices.length, 3);
      usage = answer.usage;
    });
    assertEquals(usage.completion_tokens, 300);
    const expected = cost({
      input: usage.prompt_tokens,
      cached: usage.prompt_tokens_details?.cached_tokens ?? 0,
      output: usage.completion_tokens,
    });
    assertEquals(whole.record.receipt.amount, expected);
    assertEquals(whole.taken, expected);

    const streamed = await billed(s, async () => {
      const indexes = new Set<number>();
      const stream = await client.chat.completions.create({
        ...request,
        stream: true,
        stream_options: { include_usage: true },
      });
      for await (const chunk of stream) {
        for (const choice of chunk.choices) indexes.add(choice.index);
        if (chunk.usage) usage = chunk.usage;
      }
      assertEquals([...indexes].sort(), [0, 1, 2]);
    });
    assertEquals(usage.completion_tokens, 300);
    assertEquals(streamed.record.receipt.amount, expected);
    assertEquals(streamed.taken, expected);
  },
);

Deno.test(
  "candidateCount outside 1–8 on a text model is a 400 naming it, with nothing charged",
  serverTest,
  async () => {
    await using s = await setupText();
    for (const candidateCount of [0, -3, 9, 1_000_000_000]) {
      const response = await postJson(
        s.gw,
        `/v1beta/models/${MODEL_OF.gemini}:generateContent`,
        null,
        {
          contents: [{ role: "user", parts: [{ text: "hi" }] }],
          generationConfig: { candidateCount },
        },
        { "x-goog-api-key": s.key },
      );
      const body = await response.json();
      assertEquals(response.status, 400, `candidateCount ${candidateCount}`);
      assertEquals(body.error.status, "INVALID_ARGUMENT");
      assertOk(body.error.message.includes("candidateCount"), body.error.message);
    }
    assertEquals(s.count("gemini"), 0, "nothing reached the upstream");
    await assertNothingCharged(s, 100_000_000, { untouched: true });
  },
);
