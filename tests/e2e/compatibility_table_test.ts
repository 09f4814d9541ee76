/**
 * The README's compatibility table is checked here, row by row: every ✓ is a request that must
 * work through the gateway (a stream reassembled, a tool call named, an image seen, reasoning
 * returned), so the table cannot drift from the truth.
 */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { postJson, serverTest, TEST_TEXT_PRICE } from "../helpers/gateway.ts";
import {
  MODEL_OF,
  RED_PNG_B64,
  setupText,
  type TextChannelType,
  WEATHER_SCHEMA,
} from "../helpers/text_setup.ts";
import { INBOUND } from "../helpers/text_inbound.ts";
import { CODECS } from "../../core/formats/codecs.ts";
import type { TextFormat } from "../../core/formats/neutral.ts";
import { EventSourceParserStream } from "eventsource-parser/stream";
import { startAzureOpenAIUpstream } from "../upstream/azure_openai.ts";
import {
  BEDROCK_TEST_ACCESS_KEY,
  BEDROCK_TEST_MODEL,
  BEDROCK_TEST_SECRET,
  startBedrockUpstream,
} from "../upstream/bedrock.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const README = new URL("../../README.md", import.meta.url);

/** The channel types of the table: setupText's, Azure's and Bedrock's on their simulators. */
type TableChannelType =
  | TextChannelType
  | "azure-openai"
  | "azure-openai-responses"
  | "bedrock"
  | "bedrock (Converse)";

const TABLE_MODEL_OF: Record<TableChannelType, string> = {
  ...MODEL_OF,
  "azure-openai": "m-azure",
  "azure-openai-responses": "m-azure-responses",
  bedrock: "m-bedrock",
  "bedrock (Converse)": "m-bedrock-converse",
};

/** The wire format each channel type speaks (pass-through when the inbound's is the same). */
const FORMAT_OF_CHANNEL: Record<TableChannelType, TextFormat> = {
  openai: "openai-chat",
  "openai-responses": "openai-responses",
  anthropic: "anthropic",
  gemini: "gemini",
  "azure-openai": "openai-chat",
  "azure-openai-responses": "openai-responses",
  bedrock: "anthropic",
  "bedrock (Converse)": "bedrock-converse",
};

interface Row {
  inbound: string;
  channel: TableChannelType;
  mode: string;
  features: Record<"streaming" | "tools" | "images" | "thinking", boolean>;
}

function readTable(text: string): Row[] {
  const block = text.split("<!-- compatibility:start -->")[1]?.split(
    "<!-- compatibility:end -->",
  )[0];
  assertOk(block, "README has the compatibility table between its markers");
  return block.split("\n").filter((line) => /^\| `/.test(line)).map((line) => {
    const cells = line.split("|").slice(1, -1).map((cell) => cell.trim().replaceAll("`", ""));
    const yes = (cell: string) => cell.startsWith("✓");
    return {
      inbound: cells[0],
      channel: cells[1] as TableChannelType,
      mode: cells[2],
      features: {
        streaming: yes(cells[3]),
        tools: yes(cells[4]),
        images: yes(cells[5]),
        thinking: yes(cells[6]),
      },
    };
  });
}

const FORMAT_OF_INBOUND: Record<string, TextFormat> = {
  chat: "openai-chat",
  responses: "openai-responses",
  messages: "anthropic",
  "generate-content": "gemini",
};

/** Each inbound interface's way to ask for a feature. */
const ASK: Record<string, Record<"tools" | "images" | "thinking", Json>> = {
  chat: {
    tools: {
      tools: [{ type: "function", function: { name: "get_weather", parameters: WEATHER_SCHEMA } }],
    },
    images: {
      messages: [{
        role: "user",
        content: [{ type: "text", text: "hi" }, {
          type: "image_url",
          image_url: { url: `data:image/png;base64,${RED_PNG_B64}` },
        }],
      }],
    },
    thinking: { reasoning_effort: "low", max_completion_tokens: 4000 },
  },
  responses: {
    tools: { tools: [{ type: "function", name: "get_weather", parameters: WEATHER_SCHEMA }] },
    images: {
      input: [{
        role: "user",
        content: [{ type: "input_text", text: "hi" }, {
          type: "input_image",
          image_url: `data:image/png;base64,${RED_PNG_B64}`,
        }],
      }],
    },
    thinking: { reasoning: { effort: "low" }, max_output_tokens: 4000 },
  },
  messages: {
    tools: { tools: [{ name: "get_weather", input_schema: WEATHER_SCHEMA }] },
    images: {
      messages: [{
        role: "user",
        content: [{ type: "text", text: "hi" }, {
          type: "image",
          source: { type: "base64", media_type: "image/png", data: RED_PNG_B64 },
        }],
      }],
    },
    thinking: { max_tokens: 4000, thinking: { type: "enabled", budget_tokens: 2048 } },
  },
  "generate-content": {
    tools: {
      tools: [{
        functionDeclarations: [{ name: "get_weather", parametersJsonSchema: WEATHER_SCHEMA }],
      }],
    },
    images: {
      contents: [{
        role: "user",
        parts: [{ text: "hi" }, { inlineData: { mimeType: "image/png", data: RED_PNG_B64 } }],
      }],
    },
    thinking: {
      generationConfig: {
        maxOutputTokens: 4000,
        thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 },
      },
    },
  },
};

async function post(
  url: string,
  key: string,
  inbound: string,
  channel: TableChannelType,
  stream: boolean,
  extra: Json,
) {
  const spec = INBOUND[inbound];
  const model = TABLE_MODEL_OF[channel];
  const response = await postJson(
    { url },
    spec.path(model, stream),
    null,
    { ...spec.body(model, stream), ...extra },
    spec.headers(key),
  );
  assertEquals(response.status, 200, `${inbound} → ${channel}`);
  return response;
}

/** The parts of an answer in the inbound format (read with the format's own decoder). */
async function answerParts(
  response: Response,
  format: TextFormat,
  stream: boolean,
): Promise<Json[]> {
  if (!stream) return CODECS[format].decodeResponse(await response.json()).parts;
  const decoder = CODECS[format].streamDecoder();
  const parts: Json[] = [];
  const events = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(
    new EventSourceParserStream(),
  );
  for await (const event of events) {
    for (const neutral of decoder.decode(event.event, event.data)) {
      if (neutral.type === "text") parts.push({ type: "text", text: neutral.text });
    }
  }
  assertOk(decoder.completed, "the stream reached its end");
  return [{ type: "text", text: parts.map((part) => part.text).join("") }];
}

Deno.test("README compatibility table: every ✓ works", serverTest, async () => {
  const rows = readTable(await Deno.readTextFile(README));
  assertEquals(rows.length, 32, "4 interfaces × 7 channel types, Bedrock's two APIs apart");
  await using s = await setupText();
  await using azure = startAzureOpenAIUpstream({ apiKeys: ["azure-key"] });
  for (
    const [type, deployment] of [
      ["azure-openai", "chat-prod"],
      ["azure-openai-responses", "resp-prod"],
    ] as const
  ) {
    const model = TABLE_MODEL_OF[type];
    await s.gw.putModel(model, { kind: "text", price: TEST_TEXT_PRICE, max_output_tokens: 2048 });
    await s.gw.addChannel({
      name: type,
      type,
      base_url: azure.endpoint,
      api_version: "2025-04-01-preview",
      keys: ["azure-key"],
      models: [model],
      model_map: { [model]: deployment },
    });
  }
  await using bedrock = startBedrockUpstream();
  // Claude on Bedrock through each API: InvokeModel's Anthropic bodies, and Converse.
  for (const [name, api] of [["bedrock", "invoke"], ["bedrock (Converse)", "converse"]] as const) {
    const model = TABLE_MODEL_OF[name];
    await s.gw.putModel(model, { kind: "text", price: TEST_TEXT_PRICE, max_output_tokens: 2048 });
    await s.gw.addChannel({
      name,
      type: "bedrock",
      base_url: bedrock.endpoint,
      region: bedrock.region,
      bedrock_api: api,
      keys: [`${BEDROCK_TEST_ACCESS_KEY}:${BEDROCK_TEST_SECRET}`],
      models: [model],
      model_map: { [model]: BEDROCK_TEST_MODEL },
    });
  }
  for (const row of rows) {
    const format = FORMAT_OF_INBOUND[row.inbound];
    const label = `${row.inbound} → ${row.channel}`;
    const passThrough = format === FORMAT_OF_CHANNEL[row.channel];
    assertEquals(row.mode, passThrough ? "pass-through" : "converted", label);
    if (row.features.streaming) {
      const parts = await answerParts(
        await post(s.gw.url, s.key, row.inbound, row.channel, true, {}),
        format,
        true,
      );
      assertEquals(parts[0].text, "Echo: hi", `${label}: streaming`);
    }
    if (row.features.tools) {
      const parts = await answerParts(
        await post(s.gw.url, s.key, row.inbound, row.channel, false, ASK[row.inbound].tools),
        format,
        false,
      );
      assertOk(
        parts.some((part: Json) => part.type === "tool_call" && part.name === "get_weather"),
        `${label}: tools`,
      );
    }
    if (row.features.images) {
      const parts = await answerParts(
        await post(s.gw.url, s.key, row.inbound, row.channel, false, ASK[row.inbound].images),
        format,
        false,
      );
      assertOk(
        parts.some((part: Json) => part.type === "text" && part.text.includes("[images: 1]")),
        `${label}: images`,
      );
    }
    if (row.features.thinking) {
      const parts = await answerParts(
        await post(s.gw.url, s.key, row.inbound, row.channel, false, ASK[row.inbound].thinking),
        format,
        false,
      );
      assertOk(
        parts.some((part: Json) =>
          part.type === "reasoning" && part.text.startsWith("Considering:")
        ),
        `${label}: thinking`,
      );
    }
  }
});
