/**
 * Generate-content bodies with proto (snake_case) field names, as the Gemini API reads them by the
 * proto3 JSON rules: the same answers and the same bill as their camelCase twins, on every text
 * channel type and for an image model; a field under both names is a 400 and free.
 */

import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { postJson, serverTest } from "../helpers/gateway.ts";
import { IMAGE_MODEL, type ImageChannelType, setupImages } from "../helpers/image_setup.ts";
import {
  CHANNEL_TYPES,
  MODEL_OF,
  RED_PNG_B64,
  setupText,
  type TextSetup,
} from "../helpers/text_setup.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Twin requests: [what it shows, camelCase body, snake_case body]. */
const TWINS: Array<[string, Json, Json]> = [
  [
    "system instruction, generation and thinking config",
    {
      systemInstruction: { parts: [{ text: "Be brief." }] },
      contents: [{ role: "user", parts: [{ text: "think" }] }],
      generationConfig: {
        maxOutputTokens: 4000,
        candidateCount: 1,
        thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 },
      },
    },
    {
      system_instruction: { parts: [{ text: "Be brief." }] },
      contents: [{ role: "user", parts: [{ text: "think" }] }],
      generation_config: {
        max_output_tokens: 4000,
        candidate_count: 1,
        thinking_config: { include_thoughts: true, thinking_budget: 2048 },
      },
    },
  ],
  [
    "an inline image",
    {
      contents: [{
        role: "user",
        parts: [{ text: "what is this" }, {
          inlineData: { mimeType: "image/png", data: RED_PNG_B64 },
        }],
      }],
    },
    {
      contents: [{
        role: "user",
        parts: [{ text: "what is this" }, {
          inline_data: { mime_type: "image/png", data: RED_PNG_B64 },
        }],
      }],
    },
  ],
  [
    "tools and a forced choice; property names stay the client's",
    {
      tools: [{
        functionDeclarations: [{
          name: "get_weather",
          parameters: {
            type: "OBJECT",
            properties: { city_name: { type: "STRING", maxLength: 40 } },
            required: ["city_name"],
          },
        }, { name: "get_time", parameters: { type: "OBJECT", properties: {} } }],
      }],
      toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_weather"] } },
      contents: [{ role: "user", parts: [{ text: "weather?" }] }],
    },
    {
      tools: [{
        function_declarations: [{
          name: "get_weather",
          parameters: {
            type: "OBJECT",
            properties: { city_name: { type: "STRING", max_length: 40 } },
            required: ["city_name"],
          },
        }, { name: "get_time", parameters: { type: "OBJECT", properties: {} } }],
      }],
      tool_config: {
        function_calling_config: { mode: "ANY", allowed_function_names: ["get_weather"] },
      },
      contents: [{ role: "user", parts: [{ text: "weather?" }] }],
    },
  ],
  [
    "a call and its response; their Struct contents stay the client's",
    {
      contents: [
        { role: "user", parts: [{ text: "weather?" }] },
        {
          role: "model",
          parts: [{ functionCall: { name: "get_weather", args: { city_name: "Paris" } } }],
        },
        {
          role: "user",
          parts: [{
            functionResponse: { name: "get_weather", response: { weather_report: "sunny" } },
          }],
        },
      ],
    },
    {
      contents: [
        { role: "user", parts: [{ text: "weather?" }] },
        {
          role: "model",
          parts: [{ function_call: { name: "get_weather", args: { city_name: "Paris" } } }],
        },
        {
          role: "user",
          parts: [{
            function_response: { name: "get_weather", response: { weather_report: "sunny" } },
          }],
        },
      ],
    },
  ],
];

/** What an answer says, without its ids. */
function said(answer: Json) {
  const candidate = answer.candidates[0];
  return {
    parts: candidate.content.parts.map((part: Json) => ({
      text: part.text,
      thought: part.thought,
      call: part.functionCall && { name: part.functionCall.name, args: part.functionCall.args },
    })),
    finishReason: candidate.finishReason,
    usage: answer.usageMetadata,
  };
}

async function ask(s: TextSetup, path: string, body: Json) {
  const before = await s.gw.balance(s.keyId);
  const response = await postJson(s.gw, path, null, body, { "x-goog-api-key": s.key });
  const answer = await response.json();
  await s.gw.settle();
  return { status: response.status, answer, charged: before - await s.gw.balance(s.keyId) };
}

Deno.test(
  "snake_case generate-content bodies: the answers and bills of camelCase ones, on every text channel type",
  serverTest,
  async () => {
    await using s = await setupText();
    for (const type of CHANNEL_TYPES) {
      const path = `/v1beta/models/${MODEL_OF[type]}:generateContent`;
      for (const [what, camel, snake] of TWINS) {
        const asCamel = await ask(s, path, camel);
        const upstreamCamel = JSON.stringify(s.lastBody(type));
        const asSnake = await ask(s, path, snake);
        const label = `${type}, ${what}`;
        assertEquals(asSnake.status, 200, `${label}: ${JSON.stringify(asSnake.answer)}`);
        assertEquals(said(asSnake.answer), said(asCamel.answer), label);
        assertOk(asSnake.charged > 0, `${label}: billed`);
        assertEquals(asSnake.charged, asCamel.charged, `${label}: billed as the camelCase twin`);
        // What the upstream received is the same request (ids aside).
        assertEquals(
          JSON.stringify(s.lastBody(type)).replace(/"call_[^"]*"/g, ""),
          upstreamCamel.replace(/"call_[^"]*"/g, ""),
          `${label}: upstream body`,
        );
      }
      const thought = said((await ask(s, path, TWINS[0][2])).answer);
      assertEquals(
        thought.parts.filter((part: Json) => part.thought)[0].text,
        "Considering: think",
      );
      assertEquals(
        said((await ask(s, path, TWINS[1][2])).answer).parts.at(-1).text,
        "Echo: what is this [images: 1]",
      );
      const forced = said((await ask(s, path, TWINS[2][2])).answer);
      assertEquals(forced.parts.map((part: Json) => part.call?.name), ["get_weather"], type);
      assertOk(JSON.stringify(s.lastBody(type)).includes('"city_name"'), `${type}: property name`);
      const answered = said((await ask(s, path, TWINS[3][2])).answer);
      assertOk(
        answered.parts[0].text.includes("weather_report"),
        `${type}: ${answered.parts[0].text}`,
      );

      const streamPath = `/v1beta/models/${MODEL_OF[type]}:streamGenerateContent`;
      const streamed = await postJson(s.gw, streamPath, null, TWINS[0][2], {
        "x-goog-api-key": s.key,
      });
      const chunks = await streamed.json();
      const text = chunks.map((chunk: Json) =>
        chunk.candidates[0].content.parts.filter((part: Json) => !part.thought)
          .map((part: Json) => part.text ?? "").join("")
      ).join("");
      assertEquals(text, "Echo: think", `${type}: stream`);

      const countPath = `/v1beta/models/${MODEL_OF[type]}:countTokens`;
      const counted = await ask(s, countPath, { generateContentRequest: TWINS[0][1] });
      const countedSnake = await ask(s, countPath, { generate_content_request: TWINS[0][2] });
      assertEquals(countedSnake.status, 200, JSON.stringify(countedSnake.answer));
      assertEquals(countedSnake.answer.totalTokens, counted.answer.totalTokens, `${type}: count`);
      assertEquals(countedSnake.charged, 0, `${type}: counting is free`);
    }
    await s.gw.assertLedgerInvariant(s.keyId);
  },
);

Deno.test(
  "a field under both its names is a 400 INVALID_ARGUMENT naming it, and free",
  serverTest,
  async () => {
    await using s = await setupText({ balance: 5_000_000 });
    for (const type of CHANNEL_TYPES) {
      const response = await postJson(
        s.gw,
        `/v1beta/models/${MODEL_OF[type]}:generateContent`,
        null,
        {
          contents: [{ role: "user", parts: [{ text: "hi" }] }],
          generationConfig: { maxOutputTokens: 10, max_output_tokens: 20 },
        },
        { "x-goog-api-key": s.key },
      );
      assertEquals(response.status, 400, type);
      const body = await response.json();
      assertEquals(body.error.status, "INVALID_ARGUMENT");
      assertOk(body.error.message.includes("generationConfig.maxOutputTokens"), body.error.message);
      assertEquals(s.count(type), 0, `${type}: nothing sent upstream`);
    }
    await assertNothingCharged(s, 5_000_000, { untouched: true });
  },
);

for (const type of ["gemini", "openai-images"] as ImageChannelType[]) {
  Deno.test(
    `an image model on ${type} reads snake_case bodies: same images, same bill`,
    serverTest,
    async () => {
      await using s = await setupImages(type);
      const path = `/v1beta/models/${IMAGE_MODEL}:generateContent`;
      const bodies = [
        {
          contents: [{ role: "user", parts: [{ text: "draw an owl" }] }],
          generationConfig: { responseModalities: ["IMAGE"], imageConfig: { aspectRatio: "1:1" } },
        },
        {
          contents: [{ role: "user", parts: [{ text: "draw an owl" }] }],
          generation_config: {
            response_modalities: ["IMAGE"],
            image_config: { aspect_ratio: "1:1" },
          },
        },
      ];
      for (const body of bodies) {
        const response = await postJson(s.gw, path, null, body, { "x-goog-api-key": s.key });
        const answer = await response.json();
        assertEquals(response.status, 200, JSON.stringify(answer));
        const images = answer.candidates[0].content.parts.filter((part: Json) => part.inlineData);
        assertEquals(images.length, 1);
      }
      assertEquals(s.upstreamRequests(), 2);
      assertEquals(await s.gw.assertLedgerInvariant(s.keyId), 10_000_000 - 2 * 40_000);
    },
  );
}
