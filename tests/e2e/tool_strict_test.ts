/**
 * A function tool's `strict` reaches every upstream whose format has it (chat
 * `function.strict`, responses and Anthropic `strict`) and is named in `x-gateway-ignored-fields`
 * where it has not (Gemini); the request is billed as any other. The openai SDK, chat and
 * responses, against every text channel type.
 */

import OpenAI from "openai";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import { requestsBilled } from "../helpers/assert_money.ts";
import {
  CHANNEL_TYPES,
  MODEL_OF,
  setupText,
  type TextChannelType,
  type TextSetup,
  WEATHER_SCHEMA,
} from "../helpers/text_setup.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const PARAMETERS = { ...WEATHER_SCHEMA, additionalProperties: false };

/** The `strict` of the first tool an upstream received, in that upstream's own shape. */
function upstreamStrict(s: TextSetup, type: TextChannelType): unknown {
  const body: Json = s.lastBody(type);
  switch (type) {
    case "openai":
      return body.tools[0].function.strict;
    case "gemini":
      return body.tools[0].functionDeclarations[0].strict;
    default:
      return body.tools[0].strict;
  }
}

/** One bill per request, and the balance down by exactly what the usages the client saw cost. */
async function assertBilled(s: TextSetup, costs: number[]): Promise<void> {
  await s.gw.settle();
  const balance = await s.gw.assertLedgerInvariant(s.keyId);
  assertEquals(requestsBilled(await s.gw.ledger(s.keyId)), costs.length);
  const spent = costs.reduce((sum, cost) => sum + cost, 0);
  assertOk(spent > 0);
  assertEquals(balance, 100_000_000 - spent);
}

Deno.test(
  "tool strict: carried to chat, responses and anthropic upstreams, named for gemini, billed as usual",
  serverTest,
  async () => {
    await using s = await setupText();
    const client = new OpenAI({ apiKey: s.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
    const costs: number[] = [];
    for (const type of CHANNEL_TYPES) {
      const chat = await client.chat.completions.create({
        model: MODEL_OF[type],
        messages: [{ role: "user", content: "Weather?" }],
        tools: [{
          type: "function",
          function: { name: "weather", parameters: PARAMETERS, strict: true },
        }],
      }).withResponse();
      const honoured = type !== "gemini";
      assertEquals(upstreamStrict(s, type), honoured ? true : undefined, `chat → ${type}`);
      assertEquals(
        chat.response.headers.get("x-gateway-ignored-fields"),
        honoured ? null : "tools[].function.strict",
        `chat → ${type}`,
      );
      const u = chat.data.usage!;
      const cached = u.prompt_tokens_details?.cached_tokens ?? 0;
      costs.push(Math.ceil(u.prompt_tokens - cached + cached * 0.5 + u.completion_tokens * 2));

      const responses = await client.responses.create({
        model: MODEL_OF[type],
        input: "Weather?",
        tools: [{ type: "function", name: "weather", parameters: PARAMETERS, strict: true }],
      }).withResponse();
      assertEquals(upstreamStrict(s, type), honoured ? true : undefined, `responses → ${type}`);
      assertEquals(
        responses.response.headers.get("x-gateway-ignored-fields"),
        honoured ? null : "tools[].strict",
        `responses → ${type}`,
      );
      assertEquals(responses.data.tools.map((tool: Json) => tool.strict), [true], type);
      const v = responses.data.usage!;
      const vCached = v.input_tokens_details?.cached_tokens ?? 0;
      costs.push(Math.ceil(v.input_tokens - vCached + vCached * 0.5 + v.output_tokens * 2));
    }
    await assertBilled(s, costs);
  },
);
