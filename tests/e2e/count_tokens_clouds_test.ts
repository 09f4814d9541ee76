/**
 * Token counts on the clouds, through the official SDKs as coding agents call them: the Anthropic
 * SDK's `messages.countTokens` on a `vertex` channel's Claude model (Vertex's
 * `count-tokens:rawPredict`) and on `bedrock` channels (CountTokens, with the InvokeModel body or
 * the Converse one), `@google/genai`'s `models.countTokens` on a `vertex` channel's Gemini model
 * (Vertex's `:countTokens`). Each count is the upstream's (`x-gateway-token-count: upstream`) and
 * equals the input tokens the same call reports; nothing is charged. Where the upstream cannot
 * count (Claude's count not offered in the location, a Bedrock model without counting) the
 * answer is the gateway's estimate, said so, and the channel keeps serving.
 */

import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { postJson, serverTest, startTestGateway, TEST_TEXT_PRICE } from "../helpers/gateway.ts";
import { WEATHER_SCHEMA } from "../helpers/text_setup.ts";
import { setupVertex, VERTEX_CLAUDE, VERTEX_GEMINI } from "../helpers/vertex_setup.ts";
import {
  BEDROCK_TEST_ACCESS_KEY,
  BEDROCK_TEST_MODEL,
  BEDROCK_TEST_NOVA,
  BEDROCK_TEST_SECRET,
  startBedrockUpstream,
} from "../upstream/bedrock.ts";

const WORDS = "count these words please, and the tools too";
/** The gateway's documented estimate for WORDS in one user turn: 4 characters a token, 4 a message. */
const ESTIMATE = Math.ceil(WORDS.length / 4) + 4;
const TOOLS = [{ name: "get_weather", description: "the weather", input_schema: WEATHER_SCHEMA }];

function anthropicClient(gw: { url: string }, key: string) {
  return new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 });
}

Deno.test(
  "vertex, Claude: messages.countTokens is Vertex's count-tokens:rawPredict, equal to the call's input tokens, free",
  serverTest,
  async () => {
    await using s = await setupVertex();
    const client = anthropicClient(s.gw, s.key);
    const asked = {
      model: VERTEX_CLAUDE,
      system: "be brief",
      tools: TOOLS,
      messages: [{ role: "user" as const, content: WORDS }],
    };
    const { data, response } = await client.messages.countTokens(asked).withResponse();
    assertEquals(response.headers.get("x-gateway-token-count"), "upstream");
    const call = s.sim.requests.find((request) => request.model === "count-tokens");
    assertOk(call, "the count reached Vertex's count-tokens endpoint");
    assertEquals(call.publisher, "anthropic");
    assertEquals(call.method, "rawPredict");
    assertEquals(call.body, {
      anthropic_version: "vertex-2023-10-16",
      model: "claude-sonnet-4-5@20250929",
      system: "be brief",
      tools: TOOLS,
      messages: [{ role: "user", content: WORDS }],
    });
    await assertNothingCharged(s, s.startBalance, { untouched: true });

    const message = await client.messages.create({ ...asked, max_tokens: 50 });
    assertEquals(data.input_tokens, message.usage.input_tokens);
    assertOk(data.input_tokens !== ESTIMATE);
  },
);

Deno.test(
  "vertex, Gemini: @google/genai models.countTokens is Vertex's :countTokens (its own request shape), equal to the call's prompt tokens, free",
  serverTest,
  async () => {
    await using s = await setupVertex();
    const ai = new GoogleGenAI({ apiKey: s.key, httpOptions: { baseUrl: s.gw.url } });
    const counted = await ai.models.countTokens({ model: VERTEX_GEMINI, contents: WORDS });
    const call = s.sim.requests.find((request) => request.method === "countTokens");
    assertOk(call, "the count reached Vertex's :countTokens");
    assertEquals(call.model, "gemini-2.5-flash");
    assertEquals(call.body, { contents: [{ role: "user", parts: [{ text: WORDS }] }] });
    const raw = await postJson(
      s.gw,
      `/v1beta/models/${VERTEX_GEMINI}:countTokens`,
      null,
      {
        generateContentRequest: {
          systemInstruction: { parts: [{ text: "be brief" }] },
          contents: [{ role: "user", parts: [{ text: WORDS }] }],
          toolConfig: { functionCallingConfig: { mode: "AUTO" } },
        },
      },
      { "x-goog-api-key": s.key },
    );
    assertEquals(raw.status, 200);
    assertEquals(raw.headers.get("x-gateway-token-count"), "upstream");
    const whole = await raw.json();
    // Vertex's CountTokensRequest has no toolConfig: it is left out, the rest counts.
    assertEquals(s.sim.requests.at(-1)!.body, {
      systemInstruction: { parts: [{ text: "be brief" }] },
      contents: [{ role: "user", parts: [{ text: WORDS }] }],
    });
    assertOk(whole.totalTokens > counted.totalTokens!);
    assertEquals(whole.promptTokensDetails[0].modality, "TEXT");
    await assertNothingCharged(s, s.startBalance, { untouched: true });

    const answer = await ai.models.generateContent({ model: VERTEX_GEMINI, contents: WORDS });
    assertEquals(counted.totalTokens, answer.usageMetadata?.promptTokenCount);
  },
);

Deno.test(
  "vertex, Claude where the location has no count: the estimate, said so, free, and the channel still serves",
  serverTest,
  async () => {
    await using s = await setupVertex({ claudeCountLocations: [] });
    const client = anthropicClient(s.gw, s.key);
    const asked = { model: VERTEX_CLAUDE, messages: [{ role: "user" as const, content: WORDS }] };
    const { data, response } = await client.messages.countTokens(asked).withResponse();
    assertEquals(response.headers.get("x-gateway-token-count"), "estimate");
    assertEquals(data.input_tokens, ESTIMATE);
    assertOk(s.sim.requests.some((request) => request.model === "count-tokens"));
    await assertNothingCharged(s, s.startBalance, { untouched: true });
    const message = await client.messages.create({ ...asked, max_tokens: 50 });
    assertEquals(message.type, "message");
  },
);

const BEDROCK_MODEL = "claude-bedrock";
const PROFILE = `us.${BEDROCK_TEST_MODEL}`;

async function setupBedrock(channel: Record<string, unknown>) {
  await using stack = new AsyncDisposableStack();
  const sim = stack.use(
    startBedrockUpstream({ models: [BEDROCK_TEST_MODEL, PROFILE, BEDROCK_TEST_NOVA] }),
  );
  const gw = stack.use(await startTestGateway());
  await gw.putModel(BEDROCK_MODEL, {
    kind: "text",
    price: TEST_TEXT_PRICE,
    max_output_tokens: 4000,
  });
  await gw.addChannel({
    name: "bedrock",
    type: "bedrock",
    base_url: sim.endpoint,
    region: sim.region,
    keys: [`${BEDROCK_TEST_ACCESS_KEY}:${BEDROCK_TEST_SECRET}`],
    models: [BEDROCK_MODEL],
    ...channel,
  });
  const startBalance = 10_000_000;
  const { id, key } = await gw.createKey({ balance: startBalance });
  const owned = stack.move();
  const close = () => owned.disposeAsync();
  return {
    sim,
    gw,
    keyId: id,
    key,
    startBalance,
    client: anthropicClient(gw, key),
    close,
    [Symbol.asyncDispose]: close,
  };
}

for (
  const { api, input } of [
    { api: "invoke", input: "invokeModel" },
    { api: "converse", input: "converse" },
  ]
) {
  Deno.test(
    `bedrock (${api}): messages.countTokens is CountTokens with the ${input} input, signed, an inference profile counted as its model, equal to the call's input tokens, free`,
    serverTest,
    async () => {
      await using s = await setupBedrock({
        bedrock_api: api,
        model_map: { [BEDROCK_MODEL]: PROFILE },
      });
      const asked = {
        model: BEDROCK_MODEL,
        system: "be brief",
        tools: TOOLS,
        messages: [{ role: "user" as const, content: WORDS }],
      };
      const { data, response } = await s.client.messages.countTokens(asked).withResponse();
      assertEquals(response.headers.get("x-gateway-token-count"), "upstream");
      const call = s.sim.requests.find((request) => request.path.endsWith("/count-tokens"));
      assertOk(call, "the count reached CountTokens");
      assertEquals(call.path, `/model/${encodeURIComponent(BEDROCK_TEST_MODEL)}/count-tokens`);
      assertEquals(call.auth, "sigv4");
      assertEquals(call.refused, undefined);
      assertEquals(Object.keys(call.body.input), [input]);
      await assertNothingCharged(s, s.startBalance, { untouched: true });

      const message = await s.client.messages.create({ ...asked, max_tokens: 50 });
      const reported = message.usage.input_tokens + (message.usage.cache_read_input_tokens ?? 0) +
        (message.usage.cache_creation_input_tokens ?? 0);
      assertEquals(data.input_tokens, reported);
      assertOk(data.input_tokens !== ESTIMATE);
    },
  );
}

Deno.test(
  "bedrock: a model CountTokens refuses (Nova) is estimated, said so, free, and the channel still serves",
  serverTest,
  async () => {
    await using s = await setupBedrock({ model_map: { [BEDROCK_MODEL]: BEDROCK_TEST_NOVA } });
    const asked = { model: BEDROCK_MODEL, messages: [{ role: "user" as const, content: WORDS }] };
    const { data, response } = await s.client.messages.countTokens(asked).withResponse();
    assertEquals(response.headers.get("x-gateway-token-count"), "estimate");
    assertEquals(data.input_tokens, ESTIMATE);
    const call = s.sim.requests.find((request) => request.path.endsWith("/count-tokens"));
    assertEquals(call?.refused, "ValidationException");
    await assertNothingCharged(s, s.startBalance, { untouched: true });
    const message = await s.client.messages.create({ ...asked, max_tokens: 50 });
    assertEquals(message.type, "message");
  },
);

Deno.test(
  "converted counts: @google/genai on a vertex Claude model and a bedrock Converse model, counted upstream in the channel's format",
  serverTest,
  async () => {
    await using v = await setupVertex();
    const vertexAi = new GoogleGenAI({ apiKey: v.key, httpOptions: { baseUrl: v.gw.url } });
    const claude = await vertexAi.models.countTokens({ model: VERTEX_CLAUDE, contents: WORDS });
    const claudeCall = v.sim.requests.find((request) => request.model === "count-tokens");
    assertOk(claudeCall, "counted by Vertex's Claude count");
    assertEquals(claudeCall.body.max_tokens, undefined);
    const claudeAnswer = await anthropicClient(v.gw, v.key).messages.create({
      model: VERTEX_CLAUDE,
      max_tokens: 50,
      messages: [{ role: "user", content: WORDS }],
    });
    assertEquals(claude.totalTokens, claudeAnswer.usage.input_tokens);

    await using b = await setupBedrock({
      bedrock_api: "converse",
      model_map: { [BEDROCK_MODEL]: BEDROCK_TEST_MODEL },
    });
    const bedrockAi = new GoogleGenAI({ apiKey: b.key, httpOptions: { baseUrl: b.gw.url } });
    const raw = await postJson(b.gw, `/v1beta/models/${BEDROCK_MODEL}:countTokens`, null, {
      contents: [{ role: "user", parts: [{ text: WORDS }] }],
    }, { "x-goog-api-key": b.key });
    assertEquals(raw.headers.get("x-gateway-token-count"), "upstream");
    const converse = (await raw.json()).totalTokens;
    const call = b.sim.requests.find((request) => request.path.endsWith("/count-tokens"));
    assertEquals(Object.keys(call!.body.input.converse).sort(), ["messages"]);
    const answer = await bedrockAi.models.generateContent({
      model: BEDROCK_MODEL,
      contents: WORDS,
    });
    assertEquals(converse, answer.usageMetadata?.promptTokenCount);
  },
);
