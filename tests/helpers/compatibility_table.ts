/**
 * The README's compatibility table, read row by row, and the requests that check one row: every
 * ✓ is a request that must work through the gateway (a stream reassembled, a tool call named, an
 * image seen, reasoning returned), and the token count column is the source the gateway names in
 * `x-gateway-token-count`, so the table cannot drift from the truth.
 */

import { assertEquals, assertOk } from "./assert.ts";
import { postJson } from "./gateway.ts";
import { RED_PNG_B64, WEATHER_SCHEMA } from "./text_setup.ts";
import { INBOUND } from "./text_inbound.ts";
import { CODECS } from "../../core/formats/codecs.ts";
import type { TextFormat } from "../../core/formats/neutral.ts";
import { EventSourceParserStream } from "eventsource-parser/stream";

// deno-lint-ignore no-explicit-any
type Json = any;

export const README = new URL("../../README.md", import.meta.url);

export interface Row {
  inbound: string;
  /** The channel type cell, without backticks (`vertex (Claude)` names the model's maker). */
  channel: string;
  mode: string;
  features: Record<"streaming" | "tools" | "images" | "thinking", boolean>;
  /** Where a token count comes from: `upstream`, `estimate`, or `—` (no count in the interface). */
  count: string;
}

export function readTable(text: string): Row[] {
  const block = text.split("<!-- compatibility:start -->")[1]?.split(
    "<!-- compatibility:end -->",
  )[0];
  assertOk(block, "README has the compatibility table between its markers");
  return block.split("\n").filter((line) => /^\| `/.test(line)).map((line) => {
    const cells = line.split("|").slice(1, -1).map((cell) => cell.trim().replaceAll("`", ""));
    const yes = (cell: string) => cell.startsWith("✓");
    return {
      inbound: cells[0],
      channel: cells[1],
      mode: cells[2],
      features: {
        streaming: yes(cells[3]),
        tools: yes(cells[4]),
        images: yes(cells[5]),
        thinking: yes(cells[6]),
      },
      count: cells[7],
    };
  });
}

export const FORMAT_OF_INBOUND: Record<string, TextFormat> = {
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
  model: string,
  stream: boolean,
  extra: Json,
) {
  const spec = INBOUND[inbound];
  const response = await postJson(
    { url },
    spec.path(model, stream),
    null,
    { ...spec.body(model, stream), ...extra },
    spec.headers(key),
  );
  assertEquals(response.status, 200, `${inbound} → ${model}`);
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

/** The interfaces' token-count calls (chat completions and responses have none). */
const COUNT: Record<string, { path(model: string): string; body: Json }> = {
  messages: {
    path: () => "/v1/messages/count_tokens",
    body: { messages: [{ role: "user", content: "hi" }] },
  },
  "generate-content": {
    path: (model) => `/v1beta/models/${model}:countTokens`,
    body: { contents: [{ role: "user", parts: [{ text: "hi" }] }] },
  },
};

/** The source of a token count of `model` through `inbound` (`x-gateway-token-count`), or `—`. */
async function countSource(
  target: { url: string; key: string; model: string },
  inbound: string,
): Promise<string> {
  const count = COUNT[inbound];
  if (!count) return "—";
  const response = await postJson(
    { url: target.url },
    count.path(target.model),
    null,
    { ...(inbound === "messages" ? { model: target.model } : {}), ...count.body },
    INBOUND[inbound].headers(target.key),
  );
  assertEquals(response.status, 200, `${inbound} count → ${target.model}`);
  await response.body?.cancel();
  return response.headers.get("x-gateway-token-count") ?? "";
}

/**
 * Checks `row` against a gateway serving its channel's model `model`, whose channel speaks
 * `channelFormat`: the mode (pass-through when the formats meet), every feature with a ✓, and
 * where a token count comes from.
 */
export async function checkRow(
  row: Row,
  target: { url: string; key: string; model: string; channelFormat: TextFormat },
): Promise<void> {
  const format = FORMAT_OF_INBOUND[row.inbound];
  const label = `${row.inbound} → ${row.channel}`;
  const passThrough = format === target.channelFormat;
  assertEquals(row.mode, passThrough ? "pass-through" : "converted", label);
  assertEquals(await countSource(target, row.inbound), row.count, `${label}: token count`);
  if (row.features.streaming) {
    const parts = await answerParts(
      await post(target.url, target.key, row.inbound, target.model, true, {}),
      format,
      true,
    );
    assertEquals(parts[0].text, "Echo: hi", `${label}: streaming`);
  }
  if (row.features.tools) {
    const parts = await answerParts(
      await post(target.url, target.key, row.inbound, target.model, false, ASK[row.inbound].tools),
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
      await post(target.url, target.key, row.inbound, target.model, false, ASK[row.inbound].images),
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
      await post(
        target.url,
        target.key,
        row.inbound,
        target.model,
        false,
        ASK[row.inbound].thinking,
      ),
      format,
      false,
    );
    assertOk(
      parts.some((part: Json) => part.type === "reasoning" && part.text.startsWith("Considering:")),
      `${label}: thinking`,
    );
  }
}
