/**
 * The `vertex` channel type end to end: the official SDKs through the real gateway to the
 * Vertex simulator, which verifies the service account's JWT and the bearer token of each call.
 */

import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import { RED_PNG_B64, testCost, WEATHER_SCHEMA } from "../helpers/text_setup.ts";
import { recordOf } from "../helpers/embedding_setup.ts";
import {
  setupVertex,
  VERTEX_CLAUDE,
  VERTEX_GEMINI,
  type VertexSetup,
  walletMatchesReceipts,
} from "../helpers/vertex_setup.ts";

function clients(s: VertexSetup) {
  return {
    openai: new OpenAI({ apiKey: s.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 }),
    anthropic: new Anthropic({ apiKey: s.key, baseURL: s.gw.url, maxRetries: 0 }),
    genai: new GoogleGenAI({ apiKey: s.key, httpOptions: { baseUrl: s.gw.url } }),
  };
}

const ASK = "Say hello in a few words";

/** One request of each interface, stream and not, to `model`; each answer's text. */
async function everyInterface(s: VertexSetup, model: string): Promise<Record<string, string>> {
  const { openai, anthropic, genai } = clients(s);
  const texts: Record<string, string> = {};
  const chat = await openai.chat.completions.create({
    model,
    messages: [{ role: "user", content: ASK }],
  });
  texts.chat = chat.choices[0].message.content ?? "";
  let streamed = "";
  for await (
    const chunk of await openai.chat.completions.create({
      model,
      messages: [{ role: "user", content: ASK }],
      stream: true,
      stream_options: { include_usage: true },
    })
  ) streamed += chunk.choices[0]?.delta?.content ?? "";
  texts.chatStream = streamed;

  const responses = await openai.responses.create({ model, input: ASK });
  texts.responses = responses.output_text;

  const message = await anthropic.messages.create({
    model,
    max_tokens: 200,
    messages: [{ role: "user", content: ASK }],
  });
  texts.messages = message.content.map((block) => block.type === "text" ? block.text : "").join(
    "",
  );
  const stream = anthropic.messages.stream({
    model,
    max_tokens: 200,
    messages: [{ role: "user", content: ASK }],
  });
  const final = await stream.finalMessage();
  texts.messagesStream = final.content.map((block) => block.type === "text" ? block.text : "")
    .join("");

  const generated = await genai.models.generateContent({ model, contents: ASK });
  texts.generateContent = generated.text ?? "";
  let generatedStream = "";
  for await (
    const chunk of await genai.models.generateContentStream({ model, contents: ASK })
  ) generatedStream += chunk.text ?? "";
  texts.generateContentStream = generatedStream;
  return texts;
}

Deno.test(
  "vertex: chat, responses, messages and generateContent, stream and not, on Gemini and Claude with one token",
  serverTest,
  async () => {
    await using s = await setupVertex();
    for (const model of [VERTEX_GEMINI, VERTEX_CLAUDE]) {
      const texts = await everyInterface(s, model);
      for (const [name, text] of Object.entries(texts)) {
        assertOk(text.length > 0, `${model} ${name}: empty answer`);
      }
    }
    // Every call went to the right publisher and method, with the one token fetched.
    assertEquals(s.sim.tokenCalls.issued, 1, JSON.stringify(s.sim.tokenCalls.refused));
    const tokens = new Set(s.sim.requests.map((request) => request.token));
    assertEquals(tokens.size, 1);
    const calls = s.sim.requests.map((request) =>
      `${request.publisher}/${request.model}:${request.method}`
    );
    assertEquals(calls.filter((call) => call.startsWith("google/gemini-2.5-flash:")).length, 7);
    assertEquals(
      calls.filter((call) => call.startsWith("anthropic/claude-sonnet-4-5@20250929:")).length,
      7,
    );
    assertOk(calls.includes("google/gemini-2.5-flash:streamGenerateContent"));
    assertOk(calls.includes("anthropic/claude-sonnet-4-5@20250929:streamRawPredict"));
    for (const request of s.sim.requests.filter((r) => r.publisher === "anthropic")) {
      assertEquals(request.body.anthropic_version, "vertex-2023-10-16");
      assertOk(!("model" in request.body));
    }
    const records = await walletMatchesReceipts(s);
    assertEquals(records.length, 14);
    assertOk(records.every((record) => record.status === 200));
  },
);

Deno.test(
  "vertex: tools and an image reach Gemini and Claude in their own formats",
  serverTest,
  async () => {
    await using s = await setupVertex();
    const { openai } = clients(s);
    for (const model of [VERTEX_GEMINI, VERTEX_CLAUDE]) {
      const answer = await openai.chat.completions.create({
        model,
        messages: [{
          role: "user",
          content: [
            { type: "text", text: "What colour is this? Then check the weather in Paris." },
            { type: "image_url", image_url: { url: `data:image/png;base64,${RED_PNG_B64}` } },
          ],
        }],
        tools: [{
          type: "function",
          function: { name: "get_weather", parameters: WEATHER_SCHEMA },
        }],
      });
      assertOk(answer.choices[0].message, model);
    }
    const gemini = s.sim.gemini.requests.at(-1)!.body as {
      contents: Array<{ parts: Array<Record<string, unknown>> }>;
      tools: Array<{ functionDeclarations: Array<{ name: string }> }>;
    };
    assertOk(gemini.contents[0].parts.some((part) => part.inlineData), JSON.stringify(gemini));
    assertEquals(gemini.tools[0].functionDeclarations[0].name, "get_weather");
    const claude = s.sim.anthropic.requests.at(-1)!.body as {
      messages: Array<{ content: Array<{ type: string }> }>;
      tools: Array<{ name: string }>;
    };
    assertOk(claude.messages[0].content.some((block) => block.type === "image"));
    assertEquals(claude.tools[0].name, "get_weather");
    await walletMatchesReceipts(s);
  },
);

Deno.test(
  "vertex: a token is fetched once and reused, a short-lived one within half its life (the token cache's rule, tested on its clock in token_cache_test.ts)",
  serverTest,
  async () => {
    await using s = await setupVertex();
    const { openai } = clients(s);
    const ask = () =>
      openai.chat.completions.create({
        model: VERTEX_GEMINI,
        messages: [{ role: "user", content: ASK }],
      });
    s.sim.tokenLifetimeS = 600;
    await ask();
    await ask();
    await ask();
    assertEquals(s.sim.tokenCalls.issued, 1, "one token for three calls");
    const tokens = s.sim.requests.map((request) => request.token);
    assertEquals(new Set(tokens).size, 1);
    await walletMatchesReceipts(s);
  },
);

Deno.test(
  "vertex: a token refused mid-traffic fails over to the next channel, and is fetched anew when the key's breaker lets it back",
  serverTest,
  async () => {
    let offsetMs = 0;
    await using s = await setupVertex({
      channel: { priority: 1 },
      now: () => Date.now() + offsetMs,
    });
    const second = await s.gw.addChannel({
      ...s.channelFields(),
      name: "vertex-two",
      keys: [s.sim.otherAccount.json],
      priority: 0,
    });
    const { openai } = clients(s);
    const ask = () =>
      openai.chat.completions.create({
        model: VERTEX_CLAUDE,
        messages: [{ role: "user", content: ASK }],
      }).withResponse();
    assertEquals((await ask()).response.headers.get("x-gateway-channel"), s.channelId);
    s.sim.revokeTokens(s.sim.account.email);
    const failedOver = await ask();
    assertEquals(failedOver.response.headers.get("x-gateway-channel"), second.id);
    // A refused key's breaker opens at once (10 s): past it, one probe call may use the key.
    offsetMs += 11_000;
    const again = await ask();
    assertEquals(again.response.headers.get("x-gateway-channel"), s.channelId);
    // The first channel's token twice (before and after the revocation), the second's once.
    assertEquals(s.sim.tokenCalls.issued, 3);
    const records = await walletMatchesReceipts(s);
    const attempts = records[1].upstream_attempts;
    assertEquals(attempts.map((attempt: { status: number }) => attempt.status), [401, 200]);
    const channel = await s.gw.admin("GET", `/admin/channels/${s.channelId}`);
    assertEquals(channel.body.auto_disabled, null, "one refusal does not disable the key");
  },
);

Deno.test(
  "vertex: a key the token endpoint refuses is a 502 naming the refusal, nothing charged",
  serverTest,
  async () => {
    await using s = await setupVertex();
    s.sim.revokeTokens();
    // The account's key no longer verifies: the simulator forgets it, as after a key deletion.
    const stranger = s.sim.otherAccount.json.replace(
      s.sim.otherAccount.email,
      "deleted@sim-project-1.iam.gserviceaccount.com",
    );
    await s.gw.admin("PATCH", `/admin/channels/${s.channelId}`, { keys: [stranger] });
    const response = await fetch(`${s.gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: VERTEX_GEMINI, messages: [{ role: "user", content: ASK }] }),
    });
    const body = await response.json();
    assertEquals(response.status, 502, JSON.stringify(body));
    assertEquals(body.error.code, "upstream_unavailable");
    assertEquals(s.sim.tokenCalls.refused.map((refusal) => refusal.error), ["invalid_grant"]);
    assertEquals(s.sim.requests.length, 0, "no model call without a token");
    const records = await walletMatchesReceipts(s);
    const [attempt] = records[0].upstream_attempts;
    assertOk(attempt.error.includes("invalid_grant"), attempt.error);
    assertOk(!attempt.error.includes("PRIVATE KEY"), attempt.error);
    assertEquals(records[0].receipt?.charged ?? 0, 0);
  },
);

Deno.test(
  "vertex: clocks 30 minutes apart still get a token, kept by its expires_in from its arrival",
  serverTest,
  async () => {
    await using s = await setupVertex();
    s.sim.advance(30 * 60_000); // Google's clock 30 minutes ahead of the gateway's
    const { openai } = clients(s);
    for (const model of [VERTEX_GEMINI, VERTEX_CLAUDE]) {
      await openai.chat.completions.create({ model, messages: [{ role: "user", content: ASK }] });
    }
    assertEquals(s.sim.tokenCalls.issued, 1);
    assertEquals(s.sim.tokenCalls.refused, []);
    await walletMatchesReceipts(s);
  },
);

Deno.test(
  "vertex: a gateway clock hours off Google's is refused at the token endpoint, said in the record",
  serverTest,
  async () => {
    await using s = await setupVertex();
    s.sim.advance(-2 * 3_600_000); // the gateway's clock two hours ahead
    const response = await fetch(`${s.gw.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": s.key, "content-type": "application/json" },
      body: JSON.stringify({
        model: VERTEX_CLAUDE,
        max_tokens: 50,
        messages: [{ role: "user", content: ASK }],
      }),
    });
    const body = await response.json();
    // Anthropic's envelope: a gateway that could not reach its upstream is a 500 api_error.
    assertEquals([response.status, body.error.type], [500, "api_error"], JSON.stringify(body));
    assertOk(body.error.message.includes("iat and exp"), body.error.message);
    const records = await walletMatchesReceipts(s);
    const [attempt] = records[0].upstream_attempts;
    assertOk(attempt.error.includes("iat and exp"), attempt.error);
    assertEquals(s.sim.requests.length, 0);
  },
);

Deno.test(
  "vertex: each answer is billed exactly by its usage, cached input at its own price",
  serverTest,
  async () => {
    await using s = await setupVertex({ cachedTokens: 6 });
    const { openai } = clients(s);
    for (const model of [VERTEX_GEMINI, VERTEX_CLAUDE]) {
      const { data, response } = await openai.chat.completions.create({
        model,
        messages: [{ role: "user", content: "A longer question, so that some of it was cached" }],
      }).withResponse();
      assertEquals(data.usage!.prompt_tokens_details?.cached_tokens, 6, model);
      const record = await recordOf(s.gw, response.headers.get("x-request-id")!);
      assertEquals(
        record.receipt.charged,
        testCost(data.usage!),
        `${model}: ${JSON.stringify(data.usage)}`,
      );
    }
    await walletMatchesReceipts(s);
  },
);

Deno.test(
  "vertex: requests arriving together before any token share one token fetch",
  serverTest,
  async () => {
    await using s = await setupVertex();
    const { openai } = clients(s);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        openai.chat.completions.create({
          model: index % 2 ? VERTEX_CLAUDE : VERTEX_GEMINI,
          messages: [{ role: "user", content: ASK }],
        })),
    );
    assertEquals(answers.length, 6);
    assertEquals(s.sim.tokenCalls.issued, 1);
    assertEquals(new Set(s.sim.requests.map((request) => request.token)).size, 1);
    await walletMatchesReceipts(s);
  },
);

Deno.test(
  "vertex: a key the token endpoint refuses fails over to the next channel, and is disabled after its refusals",
  serverTest,
  async () => {
    await using s = await setupVertex({
      channel: { priority: 1, auto_disable_refusals: 2, breaker: { enabled: false } },
    });
    const second = await s.gw.addChannel({
      ...s.channelFields(),
      name: "vertex-two",
      keys: [s.sim.otherAccount.json],
    });
    // The first channel's key now names an account the token endpoint does not know.
    const deleted = s.sim.account.json.replace(
      s.sim.account.email,
      "gone@sim-project-1.iam.gserviceaccount.com",
    );
    await s.gw.admin("PATCH", `/admin/channels/${s.channelId}`, { keys: [deleted] });
    const { openai } = clients(s);
    const ask = async () => {
      const { response } = await openai.chat.completions.create({
        model: VERTEX_GEMINI,
        messages: [{ role: "user", content: ASK }],
      }).withResponse();
      return response.headers.get("x-gateway-channel");
    };
    assertEquals([await ask(), await ask()], [second.id, second.id]);
    assertEquals(s.sim.tokenCalls.refused.length, 2);
    // Two refusals in a row disable the key (written off the response path: polled).
    let marks = null;
    for (let i = 0; i < 200 && !marks; i++) {
      await s.gw.settle();
      marks = (await s.gw.admin("GET", `/admin/channels/${s.channelId}`)).body.auto_disabled;
    }
    assertOk(marks, "the refused key is marked");
    // The key is not tried again: no third refusal.
    await s.gw.settle();
    assertEquals(await ask(), second.id);
    assertEquals(s.sim.tokenCalls.refused.length, 2);
    await walletMatchesReceipts(s);
  },
);
