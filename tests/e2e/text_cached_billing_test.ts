/**
 * Cached input billed at its price exactly once, whatever the upstream format and the client's:
 * cached-heavy answers from each simulated upstream (OpenAI and Gemini count cached tokens inside
 * the input, Anthropic beside it, cache writes included) through every client SDK, the charge
 * checked against the upstream's own report read by that provider's rules.
 */

import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import { assertEquals } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import {
  CHANNEL_TYPES,
  MODEL_OF,
  setupText,
  type TextChannelType,
  type TextSetup,
} from "../helpers/text_setup.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

function openai(s: TextSetup): OpenAI {
  return new OpenAI({ apiKey: s.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
}

function anthropic(s: TextSetup): Anthropic {
  return new Anthropic({ apiKey: s.key, baseURL: s.gw.url, maxRetries: 0 });
}

function genai(s: TextSetup): GoogleGenAI {
  return new GoogleGenAI({ apiKey: s.key, httpOptions: { baseUrl: s.gw.url } });
}

/** 1,000+ input tokens, most of them read from the simulators' cache. */
const LONG_PROMPT = "Summarise the repository layout again, please. ".repeat(90);
const CACHED = 900;
const CACHE_WRITTEN = 40;

/** The usage the upstream of `type` reports for its last request, asked again directly. */
async function reportedUsage(s: TextSetup, type: TextChannelType): Promise<Json> {
  const body: Json = { ...s.lastBody(type), stream: false };
  delete body.stream_options;
  const ask = (url: string, headers: Record<string, string>) =>
    fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    }).then((response) => response.json());
  switch (type) {
    case "openai":
      return (await ask(`${s.chat.baseUrl}/chat/completions`, {
        authorization: "Bearer sk-upstream-test",
      })).usage;
    case "openai-responses":
      return (await ask(`${s.responses.baseUrl}/responses`, {
        authorization: "Bearer sk-upstream-test",
      })).usage;
    case "anthropic":
      return (await ask(`${s.anthropic.baseUrl}/v1/messages`, {
        "x-api-key": "sk-ant-upstream-test",
        "anthropic-version": "2023-06-01",
      })).usage;
    case "gemini":
      return (await ask(
        `${s.gemini.baseUrl}/v1beta/models/${s.gemini.requests.at(-1)!.model}:generateContent`,
        { "x-goog-api-key": "gemini-upstream-test" },
      )).usageMetadata;
  }
}

/**
 * The charge at TEST_TEXT_PRICE (1 unit an input token, 0.5 a cached one, 2 an output token),
 * read from each provider's report by its own rules: OpenAI and Gemini count cached tokens inside
 * the input; Anthropic counts cache reads and writes beside `input_tokens` (writes at the input
 * price: the catalog has no separate one).
 */
function expectedCharge(type: TextChannelType, usage: Json): { charge: number; cached: number } {
  switch (type) {
    case "openai": {
      const cached = usage.prompt_tokens_details.cached_tokens;
      return {
        charge: Math.ceil(
          usage.prompt_tokens - cached + cached * 0.5 + usage.completion_tokens * 2,
        ),
        cached,
      };
    }
    case "openai-responses": {
      const cached = usage.input_tokens_details.cached_tokens;
      return {
        charge: Math.ceil(usage.input_tokens - cached + cached * 0.5 + usage.output_tokens * 2),
        cached,
      };
    }
    case "anthropic": {
      const cached = usage.cache_read_input_tokens;
      return {
        charge: Math.ceil(
          usage.input_tokens + usage.cache_creation_input_tokens + cached * 0.5 +
            usage.output_tokens * 2,
        ),
        cached,
      };
    }
    case "gemini": {
      const cached = usage.cachedContentTokenCount;
      const output = usage.candidatesTokenCount + (usage.thoughtsTokenCount ?? 0);
      return {
        charge: Math.ceil(usage.promptTokenCount - cached + cached * 0.5 + output * 2),
        cached,
      };
    }
  }
}

/** One request per client interface, each returning the cached tokens the client was told of. */
const CLIENTS: Record<string, (s: TextSetup, model: string) => Promise<number>> = {
  "openai chat": async (s, model) => {
    const answer = await openai(s).chat.completions.create({
      model,
      messages: [{ role: "user", content: LONG_PROMPT }],
    });
    return answer.usage!.prompt_tokens_details!.cached_tokens!;
  },
  "openai chat stream": async (s, model) => {
    const answer = await openai(s).chat.completions.stream({
      model,
      messages: [{ role: "user", content: LONG_PROMPT }],
      stream_options: { include_usage: true },
    }).finalChatCompletion();
    return answer.usage!.prompt_tokens_details!.cached_tokens!;
  },
  "openai responses": async (s, model) => {
    const answer = await openai(s).responses.create({ model, input: LONG_PROMPT });
    return answer.usage!.input_tokens_details.cached_tokens;
  },
  "anthropic stream": async (s, model) => {
    const answer = await anthropic(s).messages.stream({
      model,
      max_tokens: 256,
      messages: [{ role: "user", content: LONG_PROMPT }],
    }).finalMessage();
    return answer.usage.cache_read_input_tokens!;
  },
  "gemini": async (s, model) => {
    const answer = await genai(s).models.generateContent({ model, contents: LONG_PROMPT });
    return answer.usageMetadata!.cachedContentTokenCount!;
  },
};

for (const type of CHANNEL_TYPES) {
  Deno.test(
    `cached input from a ${type} upstream: billed at the cached price exactly once, through every client`,
    serverTest,
    async () => {
      await using s = await setupText({ cachedTokens: CACHED, cacheWriteTokens: CACHE_WRITTEN });
      for (const [client, ask] of Object.entries(CLIENTS)) {
        const before = await s.gw.balance(s.keyId);
        const toldCached = await ask(s, MODEL_OF[type]);
        await s.gw.settle();
        const charged = before - await s.gw.balance(s.keyId);
        const { charge, cached } = expectedCharge(type, await reportedUsage(s, type));
        assertEquals(cached, CACHED, `${client}: the upstream read ${CACHED} from its cache`);
        assertEquals(toldCached, CACHED, `${client}: the client is told of the cached tokens`);
        assertEquals(charged, charge, `${client} → ${type}: charged once at the cached price`);
      }
      await s.gw.assertLedgerInvariant(s.keyId);
    },
  );
}
