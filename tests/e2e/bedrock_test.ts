/**
 * `bedrock` channels end to end: the real gateway, the Bedrock simulator (tests/upstream/
 * bedrock.ts, which checks every SigV4 signature and streams AWS's binary event stream) and the
 * official SDKs as clients: chat completions and responses (openai), messages (Anthropic),
 * generateContent (Google), stream and not, with tools, an image, thinking and cached input,
 * through InvokeModel (Anthropic bodies) and through Converse;
 * wallets that match the receipts; signatures refused; bad channel settings refused at create.
 */

import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest, startTestGateway, TEST_TEXT_PRICE } from "../helpers/gateway.ts";
import { RED_PNG_B64, WEATHER_SCHEMA } from "../helpers/text_setup.ts";
import {
  BEDROCK_TEST_ACCESS_KEY,
  BEDROCK_TEST_MODEL,
  BEDROCK_TEST_NOVA,
  BEDROCK_TEST_SECRET,
  type BedrockUpstream,
  type BedrockUpstreamOptions,
  startBedrockUpstream,
} from "../upstream/bedrock.ts";
import { walletMatchesReceipts } from "../helpers/wallet_receipts.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const START_BALANCE = 10_000_000;
const MODEL = "claude-bedrock";
const SIGV4_KEY = `${BEDROCK_TEST_ACCESS_KEY}:${BEDROCK_TEST_SECRET}`;

async function setup(options: BedrockUpstreamOptions = {}) {
  await using stack = new AsyncDisposableStack();
  const bedrock = stack.use(startBedrockUpstream(options));
  const gw = stack.use(await startTestGateway());
  await gw.putModel(MODEL, { kind: "text", price: TEST_TEXT_PRICE, max_output_tokens: 8000 });
  const { id, key } = await gw.createKey({ balance: START_BALANCE });
  const owned = stack.move();
  const close = () => owned.disposeAsync();
  return {
    bedrock,
    gw,
    keyId: id,
    startBalance: START_BALANCE,
    key,
    openai: new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 }),
    anthropic: new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 }),
    genai: new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gw.url } }),
    close,
    [Symbol.asyncDispose]: close,
  };
}

type Setup = Awaited<ReturnType<typeof setup>>;

function bedrockChannel(bedrock: BedrockUpstream, fields: Record<string, unknown> = {}) {
  return {
    name: "bedrock",
    type: "bedrock",
    base_url: bedrock.endpoint,
    region: bedrock.region,
    keys: [SIGV4_KEY],
    models: [MODEL],
    model_map: { [MODEL]: BEDROCK_TEST_MODEL },
    ...fields,
  };
}

Deno.test(
  "bedrock with SigV4: chat, responses, messages and generateContent through their SDKs, stream and not, signed for the model id with ':' and billed as the receipts say",
  serverTest,
  async () => {
    await using s = await setup();
    await s.gw.addChannel(bedrockChannel(s.bedrock));

    const chat = await s.openai.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "hello bedrock" }],
    });
    assertEquals(chat.choices[0].message.content, "Echo: hello bedrock");
    assertEquals(chat.model, MODEL);
    const first = s.bedrock.requests[0];
    assertEquals(first.path, "/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/invoke");
    assertEquals(first.auth, "sigv4");
    assertEquals(first.refused, undefined);
    assertEquals(first.body.anthropic_version, "bedrock-2023-05-31");

    let streamed = "";
    const chatStream = await s.openai.chat.completions.create({
      model: MODEL,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: "stream it" }],
    });
    let usage: Json;
    for await (const chunk of chatStream) {
      streamed += chunk.choices[0]?.delta?.content ?? "";
      usage = chunk.usage ?? usage;
    }
    assertEquals(streamed, "Echo: stream it");
    assertOk(usage.completion_tokens > 0);
    assertEquals(
      s.bedrock.requests.at(-1)!.path,
      "/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/invoke-with-response-stream",
    );

    const message = await s.anthropic.messages.create({
      model: MODEL,
      max_tokens: 200,
      messages: [{ role: "user", content: "native body" }],
    });
    assertEquals(
      message.content[0].type === "text" && message.content[0].text,
      "Echo: native body",
    );
    assertEquals(message.model, MODEL);
    const messageStream = await s.anthropic.messages.stream({
      model: MODEL,
      max_tokens: 200,
      messages: [{ role: "user", content: "native stream" }],
    }).finalMessage();
    assertEquals(
      messageStream.content[0].type === "text" && messageStream.content[0].text,
      "Echo: native stream",
    );

    const responses = await s.openai.responses.create({ model: MODEL, input: "as a response" });
    assertEquals(responses.output_text, "Echo: as a response");
    let responseText = "";
    for await (
      const event of await s.openai.responses.create({
        model: MODEL,
        input: "response stream",
        stream: true,
      })
    ) {
      if (event.type === "response.output_text.delta") responseText += event.delta;
    }
    assertEquals(responseText, "Echo: response stream");

    const generated = await s.genai.models.generateContent({
      model: MODEL,
      contents: "from gemini's sdk",
    });
    assertEquals(generated.text, "Echo: from gemini's sdk");
    let generatedStream = "";
    for await (
      const chunk of await s.genai.models.generateContentStream({
        model: MODEL,
        contents: "gemini stream",
      })
    ) {
      generatedStream += chunk.text ?? "";
    }
    assertEquals(generatedStream, "Echo: gemini stream");

    assertOk(s.bedrock.requests.every((request) => request.refused === undefined));
    const records = await walletMatchesReceipts(s);
    assertEquals(records.filter((record) => record.status === 200).length, 8);
    assertOk(records.every((record) => record.receipt.charged > 0));
    const logged = JSON.stringify(records);
    assertOk(!logged.includes(BEDROCK_TEST_SECRET), "the secret is in no record");
  },
);

Deno.test(
  "bedrock: tools and an image in, thinking out, cached input billed at its price",
  serverTest,
  async () => {
    await using s = await setup({ anthropic: { cachedTokens: 900 } });
    await s.gw.addChannel(bedrockChannel(s.bedrock));

    const called = await s.openai.chat.completions.create({
      model: MODEL,
      tools: [{ type: "function", function: { name: "get_weather", parameters: WEATHER_SCHEMA } }],
      messages: [{
        role: "user",
        content: [{ type: "text", text: "weather here?" }, {
          type: "image_url",
          image_url: { url: `data:image/png;base64,${RED_PNG_B64}` },
        }],
      }],
    });
    const call = called.choices[0].message.tool_calls?.[0];
    assertEquals(call?.type === "function" && call.function.name, "get_weather");
    assertEquals(called.choices[0].finish_reason, "tool_calls");
    const sent = s.bedrock.requests.at(-1)!.body;
    assertEquals(sent.messages[0].content[1].type, "image");
    assertEquals(sent.tools[0].name, "get_weather");

    const thought = await s.anthropic.messages.stream({
      model: MODEL,
      max_tokens: 4000,
      thinking: { type: "enabled", budget_tokens: 2048 },
      messages: [{ role: "user", content: "think first" }],
    }).finalMessage();
    const thinking = thought.content.find((block) => block.type === "thinking");
    assertOk(thinking?.type === "thinking" && thinking.thinking.startsWith("Considering:"));
    assertOk(thinking.signature.length > 0);

    const prompt = "Summarise the repository layout again, please. ".repeat(90);
    const cached = await s.anthropic.messages.create({
      model: MODEL,
      max_tokens: 200,
      messages: [{ role: "user", content: prompt }],
    });
    assertEquals(cached.usage.cache_read_input_tokens, 900);
    const records = await walletMatchesReceipts(s);
    const last = records.find((record) =>
      record.status === 200 && record.receipt?.charged ===
        Math.ceil(
          cached.usage.input_tokens + (cached.usage.cache_creation_input_tokens ?? 0) + 900 * 0.5 +
            cached.usage.output_tokens * 2,
        )
    );
    assertOk(last, "the cached request was charged 0.5 a cached token");
  },
);

Deno.test(
  "bedrock: temporary credentials with a session token, and Bedrock API keys as bearer tokens",
  serverTest,
  async () => {
    await using s = await setup({
      accessKeys: { ASIAEXAMPLETEMP: "temp-secret/+x" },
      sessionTokens: { ASIAEXAMPLETEMP: "FwoGZXIvYXdzEJr//token==" },
      apiKeys: ["ABSKbedrockapikey"],
    });
    await s.gw.addChannel(bedrockChannel(s.bedrock, {
      keys: ["ASIAEXAMPLETEMP:temp-secret/+x:FwoGZXIvYXdzEJr//token=="],
    }));
    const answer = await s.openai.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "temporary" }],
    });
    assertEquals(answer.choices[0].message.content, "Echo: temporary");
    assertEquals(
      s.bedrock.requests.at(-1)!.headers["x-amz-security-token"],
      "FwoGZXIvYXdzEJr//token==",
    );

    const channels = await s.gw.admin("GET", "/admin/channels");
    const id = channels.body.data[0].id;
    const patched = await s.gw.admin("PATCH", `/admin/channels/${id}`, {
      bedrock_auth: "api-key",
      keys: ["ABSKbedrockapikey"],
    });
    assertEquals(patched.status, 200, JSON.stringify(patched.body));
    const withApiKey = await s.openai.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "api key" }],
    });
    assertEquals(withApiKey.choices[0].message.content, "Echo: api key");
    assertEquals(s.bedrock.requests.at(-1)!.auth, "api-key");
    await walletMatchesReceipts(s);
  },
);

Deno.test(
  "bedrock: a wrong secret is refused by its signature and fails over; a clock 20 minutes off is refused as expired, nothing charged",
  serverTest,
  async () => {
    let skew = 0;
    await using s = await setup({ now: () => new Date(Date.now() + skew) });
    await s.gw.addChannel(bedrockChannel(s.bedrock, {
      name: "wrong-secret",
      priority: 10,
      keys: [`${BEDROCK_TEST_ACCESS_KEY}:not-the-secret`],
    }));
    await s.gw.addChannel(bedrockChannel(s.bedrock, { name: "right", priority: 1 }));
    const answer = await s.openai.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "fail over" }],
    });
    assertEquals(answer.choices[0].message.content, "Echo: fail over");
    assertEquals(
      s.bedrock.requests.map((request) => request.refused),
      ["InvalidSignatureException", undefined],
    );

    skew = 20 * 60_000;
    const before = s.bedrock.requests.length;
    const refused = await s.openai.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "too late" }],
    }).then(() => undefined, (error) => error);
    assertOk(refused instanceof OpenAI.APIError && refused.status! >= 500);
    assertOk(
      s.bedrock.requests.slice(before).every((request) =>
        request.refused === "InvalidSignatureException"
      ),
    );
    const records = await walletMatchesReceipts(s);
    assertEquals(records.find((record) => record.status !== 200)?.receipt?.charged ?? 0, 0);
    assertOk(!JSON.stringify(records).includes("not-the-secret"));
  },
);

Deno.test(
  "bedrock: a model Bedrock does not serve is its 400 ValidationException, in the client's envelope, nothing charged",
  serverTest,
  async () => {
    await using s = await setup();
    await s.gw.addChannel(bedrockChannel(s.bedrock, {
      model_map: { [MODEL]: "anthropic.claude-unknown-v9:0" },
    }));
    const refused = await s.anthropic.messages.create({
      model: MODEL,
      max_tokens: 100,
      messages: [{ role: "user", content: "hello" }],
    }).then(() => undefined, (error) => error);
    assertOk(refused instanceof Anthropic.APIError);
    assertEquals(refused.status, 400);
    assertOk(String(refused.message).includes("The provided model identifier is invalid."));
    assertEquals(await s.gw.assertLedgerInvariant(s.keyId), START_BALANCE);
  },
);

Deno.test(
  "bedrock: bad channel settings and keys of the wrong form are a 400 naming the field",
  serverTest,
  async () => {
    await using s = await setup();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ region: undefined }, "region"],
      [{ region: "Mars-1" }, "region"],
      [{ bedrock_auth: "iam" }, "bedrock_auth"],
      [{ bedrock_api: "chat" }, "bedrock_api"],
      [{ base_url: `${s.bedrock.endpoint}/model` }, "base_url"],
    ];
    for (const [fields, param] of cases) {
      const { status, body } = await s.gw.admin(
        "POST",
        "/admin/channels",
        bedrockChannel(s.bedrock, fields),
      );
      assertEquals(status, 400, JSON.stringify(fields));
      assertEquals(body.error.param, param, JSON.stringify(body));
    }
    const badKey = await s.gw.admin(
      "POST",
      "/admin/channels",
      bedrockChannel(s.bedrock, { keys: ["ABSK-an-api-key-SECRETX"] }),
    );
    assertEquals(badKey.status, 400);
    assertEquals(badKey.body.error.param, "keys");
    assertOk(!JSON.stringify(badKey.body).includes("SECRETX"), "the key is not quoted");
    const apiKeyChannel = await s.gw.admin(
      "POST",
      "/admin/channels",
      bedrockChannel(s.bedrock, { bedrock_auth: "api-key", keys: ["ABSK-an-api-key-SECRETX"] }),
    );
    assertEquals(apiKeyChannel.status, 201, JSON.stringify(apiKeyChannel.body));
    const sigv4 = await s.gw.addChannel(bedrockChannel(s.bedrock));
    const added = await s.gw.admin("PATCH", `/admin/channels/${sigv4.id}`, {
      add_keys: ["AKIAONLYANID"],
    });
    assertEquals(added.status, 400);
    assertEquals(added.body.error.param, "add_keys");
    const { status, body } = await s.gw.admin("POST", "/admin/channels", {
      name: "openai with a region",
      type: "openai",
      base_url: "https://api.openai.com/v1",
      keys: ["sk-x"],
      models: [MODEL],
      region: "us-east-1",
    });
    assertEquals(status, 400);
    assertEquals(body.error.param, "region");
  },
);

Deno.test(
  "bedrock Converse: a model that is not Anthropic's goes to /converse and /converse-stream, every interface with its SDK, tools and an image in, billed as the receipts say",
  serverTest,
  async () => {
    await using s = await setup();
    const channel = await s.gw.addChannel(bedrockChannel(s.bedrock, {
      model_map: { [MODEL]: BEDROCK_TEST_NOVA },
    }));
    // The channel's Test: one signed Converse call, not charged.
    const tested = await s.gw.admin("POST", `/admin/channels/${channel.id}/test`, { model: MODEL });
    assertEquals(tested.body.ok, true, JSON.stringify(tested.body));
    assertEquals(s.bedrock.requests.shift()!.path, "/model/amazon.nova-pro-v1%3A0/converse");

    const chat = await s.openai.chat.completions.create({
      model: MODEL,
      messages: [{ role: "system", content: "be brief" }, { role: "user", content: "hello nova" }],
      max_tokens: 300,
      temperature: 0.3,
    });
    assertEquals(chat.choices[0].message.content, "Echo: hello nova");
    assertOk(chat.usage!.prompt_tokens > 0 && chat.usage!.completion_tokens > 0);
    const first = s.bedrock.requests[0];
    assertEquals(first.path, "/model/amazon.nova-pro-v1%3A0/converse");
    assertEquals(first.refused, undefined);
    assertEquals(first.body.system, [{ text: "be brief" }]);
    assertEquals(first.body.inferenceConfig, { maxTokens: 300, temperature: 0.3 });

    let streamed = "";
    for await (
      const chunk of await s.openai.chat.completions.create({
        model: MODEL,
        stream: true,
        messages: [{ role: "user", content: "stream nova" }],
      })
    ) streamed += chunk.choices[0]?.delta?.content ?? "";
    assertEquals(streamed, "Echo: stream nova");
    assertEquals(s.bedrock.requests.at(-1)!.path, "/model/amazon.nova-pro-v1%3A0/converse-stream");

    const called = await s.anthropic.messages.create({
      model: MODEL,
      max_tokens: 300,
      tools: [{ name: "get_weather", input_schema: WEATHER_SCHEMA }],
      messages: [{
        role: "user",
        content: [{ type: "text", text: "weather?" }, {
          type: "image",
          source: { type: "base64", media_type: "image/png", data: RED_PNG_B64 },
        }],
      }],
    });
    const use = called.content.find((block) => block.type === "tool_use");
    assertEquals(use?.type === "tool_use" && use.name, "get_weather");
    assertEquals(called.stop_reason, "tool_use");
    const sent = s.bedrock.requests.at(-1)!.body;
    assertEquals(sent.messages[0].content[1].image.format, "png");
    assertEquals(sent.toolConfig.tools[0].toolSpec.name, "get_weather");

    const streamedCall = await s.anthropic.messages.stream({
      model: MODEL,
      max_tokens: 300,
      tools: [{ name: "get_weather", input_schema: WEATHER_SCHEMA }],
      messages: [{ role: "user", content: "weather, streamed?" }],
    }).finalMessage();
    const streamedUse = streamedCall.content.find((block) => block.type === "tool_use");
    assertOk(streamedUse?.type === "tool_use" && typeof streamedUse.input === "object");

    // What Converse cannot carry for this model is dropped and named: thinking (Claude's own
    // field), a seed, an image by address.
    const dropped = await s.openai.chat.completions.create({
      model: MODEL,
      reasoning_effort: "low",
      seed: 7,
      messages: [{
        role: "user",
        content: [{ type: "text", text: "plain" }, {
          type: "image_url",
          image_url: { url: "https://example.com/cat.png" },
        }],
      }],
    }).withResponse();
    assertEquals(dropped.data.choices[0].message.content, "Echo: plain");
    assertEquals(
      dropped.response.headers.get("x-gateway-ignored-fields")?.split(",").map((name) =>
        name.trim()
      ).sort(),
      ["imageUrl", "reasoning_effort", "seed"],
    );

    const responses = await s.openai.responses.create({ model: MODEL, input: "nova response" });
    assertEquals(responses.output_text, "Echo: nova response");
    const generated = await s.genai.models.generateContent({
      model: MODEL,
      contents: "nova gemini",
    });
    assertEquals(generated.text, "Echo: nova gemini");
    let generatedStream = "";
    for await (
      const chunk of await s.genai.models.generateContentStream({
        model: MODEL,
        contents: "nova gemini stream",
      })
    ) generatedStream += chunk.text ?? "";
    assertEquals(generatedStream, "Echo: nova gemini stream");

    assertOk(s.bedrock.requests.every((request) => request.refused === undefined));
    const records = await walletMatchesReceipts(s);
    assertEquals(records.filter((record) => record.status === 200).length, 8);
    assertOk(records.every((record) => record.receipt.charged > 0));
  },
);

Deno.test(
  "bedrock Converse for Claude (bedrock_api converse): thinking streamed with its signature, cached input billed at its price",
  serverTest,
  async () => {
    await using s = await setup({ anthropic: { cachedTokens: 900 } });
    await s.gw.addChannel(bedrockChannel(s.bedrock, { bedrock_api: "converse" }));

    const thought = await s.anthropic.messages.stream({
      model: MODEL,
      max_tokens: 4000,
      thinking: { type: "enabled", budget_tokens: 2048 },
      messages: [{ role: "user", content: "think first" }],
    }).finalMessage();
    assertEquals(
      s.bedrock.requests.at(-1)!.path,
      "/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse-stream",
    );
    assertEquals(s.bedrock.requests.at(-1)!.body.additionalModelRequestFields, {
      thinking: { type: "enabled", budget_tokens: 2048 },
    });
    const thinking = thought.content.find((block) => block.type === "thinking");
    assertOk(thinking?.type === "thinking" && thinking.thinking.startsWith("Considering:"));
    assertOk(thinking.signature.length > 0);

    const replayed = await s.anthropic.messages.create({
      model: MODEL,
      max_tokens: 4000,
      thinking: { type: "enabled", budget_tokens: 2048 },
      messages: [
        { role: "user", content: "think first" },
        { role: "assistant", content: thought.content },
        { role: "user", content: "and again" },
      ],
    });
    assertOk(replayed.content.some((block) => block.type === "thinking"));
    const history = s.bedrock.requests.at(-1)!.body.messages[1].content[0];
    assertEquals(history.reasoningContent.reasoningText.text, thinking.thinking);

    const prompt = "Summarise the repository layout again, please. ".repeat(90);
    const cached = await s.openai.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: prompt }],
    });
    const usage = cached.usage!;
    assertEquals(usage.prompt_tokens_details?.cached_tokens, 900);
    const records = await walletMatchesReceipts(s);
    const expected = Math.ceil(
      usage.prompt_tokens - 900 + 900 * 0.5 + usage.completion_tokens * 2,
    );
    assertOk(
      records.some((record) => record.status === 200 && record.receipt?.charged === expected),
      `the cached request was charged ${expected}`,
    );
  },
);

Deno.test(
  "bedrock: an exception frame mid-stream, on either API, is the stream's error in the client's terms, nothing charged",
  serverTest,
  async () => {
    await using s = await setup();
    await s.gw.addChannel(bedrockChannel(s.bedrock, {
      name: "invoke",
      models: [MODEL],
      breaker: { enabled: false },
    }));
    await s.gw.putModel("nova", { kind: "text", price: TEST_TEXT_PRICE });
    await s.gw.addChannel(bedrockChannel(s.bedrock, {
      name: "converse",
      models: ["nova"],
      model_map: { nova: BEDROCK_TEST_NOVA },
      breaker: { enabled: false },
    }));
    for (const model of [MODEL, "nova"]) {
      s.bedrock.faults.push({ kind: "in_stream_error", afterFrames: 4 });
      const error = await s.anthropic.messages.stream({
        model,
        max_tokens: 200,
        messages: [{ role: "user", content: "break mid-way" }],
      }).finalMessage().then(() => undefined, (error) => error);
      assertOk(error instanceof Anthropic.APIError, `${model}: ${error}`);
      assertEquals((error.error as Json)?.error?.type, "overloaded_error", model);

      s.bedrock.faults.push({ kind: "in_stream_error", afterFrames: 4 });
      const chat = await s.openai.chat.completions.create({
        model,
        stream: true,
        messages: [{ role: "user", content: "break mid-way" }],
      });
      const chatError = await (async () => {
        for await (const _ of chat) { /* read to the error */ }
      })().then(() => undefined, (error) => error);
      assertOk(chatError instanceof Error, `${model}: chat stream ends in an error`);
    }
    assertEquals(await s.gw.assertLedgerInvariant(s.keyId), START_BALANCE);
  },
);
