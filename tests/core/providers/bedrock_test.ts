import { assertEquals } from "../../helpers/assert.ts";
import type { Channel } from "../../../core/channels/channel_schema.ts";
import {
  anthropicEventOf,
  bedrockChannelProblem,
  bedrockFormatOf,
  bedrockInvokeBody,
  bedrockProvider,
  converseEventOf,
} from "../../../core/providers/bedrock.ts";
import { CHANNEL_RULES } from "../../../core/providers/provider_table.ts";

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
