import { assertEquals } from "../../helpers/assert.ts";
import type { Channel } from "../../../core/channels/channel_schema.ts";
import {
  anthropicEventOf,
  bedrockChannelProblem,
  bedrockCountingModel,
  bedrockCountTokensBody,
  bedrockFormatOf,
  bedrockInvokeBody,
  bedrockProvider,
  converseEventOf,
  readBedrockTokenCount,
} from "../../../core/providers/bedrock.ts";
import { CHANNEL_RULES } from "../../../core/providers/provider_table.ts";
import { NO_CLIENT_HINTS } from "../../../core/providers/client_hints.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const base64 = (text: string) => btoa(String.fromCharCode(...bytes(text)));

Deno.test("bedrock invoke body: no model or stream, Bedrock's anthropic_version, betas in the body", () => {
  const body = JSON.stringify({
    model: "claude",
    stream: true,
    max_tokens: 10,
    messages: [{ role: "user", content: "hi" }],
  });
  assertEquals(JSON.parse(bedrockInvokeBody(body, [])), {
    anthropic_version: "bedrock-2023-05-31",
    max_tokens: 10,
    messages: [{ role: "user", content: "hi" }],
  });
  assertEquals(
    JSON.parse(bedrockInvokeBody(body, ["interleaved-thinking-2025-05-14"])).anthropic_beta,
    ["interleaved-thinking-2025-05-14"],
  );
});

Deno.test("bedrock stream events: a chunk's bytes are one Anthropic event, named by its type", () => {
  const event = '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"é"}}';
  assertEquals(
    anthropicEventOf({
      headers: { ":message-type": "event", ":event-type": "chunk" },
      body: bytes(JSON.stringify({ bytes: base64(event), p: "abc" })),
    }),
    { event: "content_block_delta", data: event },
  );
  assertEquals(
    anthropicEventOf({
      headers: { ":message-type": "event", ":event-type": "other" },
      body: bytes("{}"),
    }),
    undefined,
  );
});

Deno.test("bedrock stream events: an exception frame is an Anthropic error event with AWS's words", () => {
  const event = anthropicEventOf({
    headers: { ":message-type": "exception", ":exception-type": "throttlingException" },
    body: bytes('{"message":"Too many requests, please wait before trying again."}'),
  });
  assertEquals(event?.event, "error");
  assertEquals(JSON.parse(event!.data), {
    type: "error",
    error: {
      type: "rate_limit_error",
      message: "Too many requests, please wait before trying again.",
    },
  });
});

Deno.test("bedrock channels: sigv4 needs a region; settings of bedrock refused on other types", () => {
  const channel = { name: "b", type: "bedrock", base_url: "https://x" } as Omit<Channel, "keys">;
  assertEquals(bedrockChannelProblem(channel)?.param, "region");
  assertEquals(bedrockChannelProblem({ ...channel, region: "us-east-1" }), undefined);
  assertEquals(bedrockChannelProblem({ ...channel, bedrock_auth: "api-key" }), undefined);
  const east = { ...channel, base_url: "https://bedrock-runtime.us-east-1.amazonaws.com" };
  assertEquals(bedrockChannelProblem({ ...east, region: "us-east-1" }), undefined);
  assertEquals(bedrockChannelProblem({ ...east, region: "eu-west-1" })?.param, "region");
  assertEquals(
    CHANNEL_RULES.channelProblem({ ...channel, type: "anthropic", region: "us-east-1" })?.param,
    "region",
  );
  assertEquals(
    CHANNEL_RULES.baseUrlProblem("bedrock", "https://bedrock-runtime.us-east-1.amazonaws.com/model")
      ?.includes("https://bedrock-runtime.us-east-1.amazonaws.com"),
    true,
  );
  assertEquals(bedrockProvider.text?.format, "anthropic");
});

Deno.test("bedrock API by model: invoke (Anthropic bodies) for Anthropic models, Converse for others, unless the channel says", () => {
  const channel = { type: "bedrock" } as Channel;
  assertEquals(bedrockFormatOf(channel, "anthropic.claude-3-5-sonnet-20240620-v1:0"), "anthropic");
  assertEquals(bedrockFormatOf(channel, "us.anthropic.claude-sonnet-4-20250514-v1:0"), "anthropic");
  assertEquals(
    bedrockFormatOf(channel, "arn:aws:bedrock:us-east-1:1:inference-profile/eu.anthropic.x-v1:0"),
    "anthropic",
  );
  assertEquals(bedrockFormatOf(channel, "amazon.nova-pro-v1:0"), "bedrock-converse");
  assertEquals(bedrockFormatOf(channel, "meta.llama3-70b-instruct-v1:0"), "bedrock-converse");
  assertEquals(
    bedrockFormatOf({ ...channel, bedrock_api: "converse" }, "anthropic.claude-x-v1:0"),
    "bedrock-converse",
  );
  assertEquals(bedrockFormatOf({ ...channel, bedrock_api: "invoke" }, "amazon.nova"), "anthropic");
});

Deno.test("converse stream events: each named by its event type; an exception frame is an exception event", () => {
  assertEquals(
    converseEventOf({
      headers: { ":message-type": "event", ":event-type": "contentBlockDelta" },
      body: bytes('{"contentBlockIndex":0,"delta":{"text":"hi"},"p":"abc"}'),
    }),
    { event: "contentBlockDelta", data: '{"contentBlockIndex":0,"delta":{"text":"hi"},"p":"abc"}' },
  );
  const exception = converseEventOf({
    headers: { ":message-type": "exception", ":exception-type": "validationException" },
    body: bytes('{"message":"bad input"}'),
  });
  assertEquals(exception?.event, "exception");
  assertEquals(JSON.parse(exception!.data), {
    type: "invalid_request_error",
    message: "bad input",
  });
});

Deno.test("bedrock count body on converse: the counted fields of the Converse body, inferenceConfig left out", () => {
  const messages = [{ role: "user", content: [{ text: "hi" }] }];
  const toolConfig = { tools: [{ toolSpec: { name: "f", inputSchema: { json: {} } } }] };
  assertEquals(
    bedrockCountTokensBody({
      messages,
      system: [{ text: "be brief" }],
      toolConfig,
      inferenceConfig: { maxTokens: 1, temperature: 0 },
    }, { api: "converse", betas: [] }),
    { input: { converse: { messages, system: [{ text: "be brief" }], toolConfig } } },
  );
});

Deno.test("bedrock count body on invoke: the InvokeModel body in base64, thinking given room", () => {
  const counted = bedrockCountTokensBody({
    model: "claude",
    max_tokens: 1,
    thinking: { type: "enabled", budget_tokens: 2048 },
    messages: [{ role: "user", content: "hi" }],
  }, { api: "invoke", betas: ["b-1"] }) as { input: { invokeModel: { body: string } } };
  assertEquals(Object.keys(counted.input), ["invokeModel"]);
  assertEquals(
    JSON.parse(new TextDecoder().decode(Uint8Array.fromBase64(counted.input.invokeModel.body))),
    {
      anthropic_version: "bedrock-2023-05-31",
      max_tokens: 2049,
      thinking: { type: "enabled", budget_tokens: 2048 },
      messages: [{ role: "user", content: "hi" }],
      anthropic_beta: ["b-1"],
    },
  );
});

Deno.test("bedrock counting model: an inference profile counts as its foundation model; ids and ARNs as they are", () => {
  assertEquals(
    bedrockCountingModel("us.anthropic.claude-sonnet-4-20250514-v1:0"),
    "anthropic.claude-sonnet-4-20250514-v1:0",
  );
  assertEquals(
    bedrockCountingModel("global.anthropic.claude-sonnet-4-5-20250929-v1:0"),
    "anthropic.claude-sonnet-4-5-20250929-v1:0",
  );
  assertEquals(
    bedrockCountingModel("anthropic.claude-3-5-sonnet-20240620-v1:0"),
    "anthropic.claude-3-5-sonnet-20240620-v1:0",
  );
  const arn = "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-x";
  assertEquals(bedrockCountingModel(arn), arn);
});

Deno.test("bedrock count answer: inputTokens, or nothing", () => {
  assertEquals(readBedrockTokenCount('{"inputTokens":42}'), { input: 42 });
  assertEquals(readBedrockTokenCount('{"inputTokens":"42"}'), undefined);
  assertEquals(readBedrockTokenCount("{}"), undefined);
  assertEquals(readBedrockTokenCount("<html>"), undefined);
});

Deno.test("bedrock count call: POST /model/{foundation id}/count-tokens with the channel's auth", async () => {
  const channel = {
    type: "bedrock",
    base_url: "https://bedrock-runtime.us-east-1.amazonaws.com",
    bedrock_auth: "api-key",
    keys: ["k"],
  } as unknown as Channel;
  const request = await bedrockProvider.text!.countTokens!.request(
    { channel, apiKey: "bedrock-api-key-1", model: "us.anthropic.claude-sonnet-4-20250514-v1:0" },
    {
      request: { model: "m", max_tokens: 1, messages: [{ role: "user", content: "hi" }] },
      hints: NO_CLIENT_HINTS,
    },
  );
  assertEquals(
    request.url,
    "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-sonnet-4-20250514-v1%3A0/count-tokens",
  );
  const headers = request.init.headers as Record<string, string>;
  assertEquals(headers.authorization, "Bearer bedrock-api-key-1");
  assertEquals(Object.keys(JSON.parse(request.init.body as string).input), ["invokeModel"]);
});
