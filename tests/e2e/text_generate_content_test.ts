/** generateContent / streamGenerateContent for text models with @google/genai 2.x and 3.x. */

import { GoogleGenAI, type Tool, Type } from "@google/genai";
import { GoogleGenAI as GoogleGenAI3 } from "@google/genai3";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { postJson, serverTest } from "../helpers/gateway.ts";
import {
  CACHED_TOKENS,
  CHANNEL_TYPES,
  MODEL_OF,
  RED_PNG_B64,
  setupText,
  WEATHER_SCHEMA,
} from "../helpers/text_setup.ts";

const tools: Tool[] = [{
  functionDeclarations: [
    { name: "get_weather", description: "Weather", parametersJsonSchema: WEATHER_SCHEMA },
    {
      name: "get_time",
      description: "Time",
      // The OpenAPI-style schema older Gemini code sends: types in capitals.
      parameters: {
        type: Type.OBJECT,
        properties: { city: { type: Type.STRING } },
        required: ["city"],
      },
    },
  ],
}];

for (const type of CHANNEL_TYPES) {
  const model = MODEL_OF[type];

  Deno.test(
    `generateContent → ${type}: text, stream, function calls in two turns, images, thoughts`,
    serverTest,
    async () => {
      await using s = await setupText();
      const sdks = [
        new GoogleGenAI({ apiKey: s.key, httpOptions: { baseUrl: s.gw.url } }),
        new GoogleGenAI3({
          apiKey: s.key,
          httpOptions: { baseUrl: s.gw.url },
        }) as unknown as GoogleGenAI,
      ];
      for (const ai of sdks) {
        const answer = await ai.models.generateContent({
          model,
          contents: "hello",
          config: { systemInstruction: "Be brief." },
        });
        assertEquals(answer.text, "Echo: hello");
        assertEquals(answer.candidates?.[0].finishReason, "STOP");
        assertEquals(answer.usageMetadata?.cachedContentTokenCount, CACHED_TOKENS, type);

        let streamed = "";
        let lastUsage: unknown;
        for await (
          const chunk of await ai.models.generateContentStream({
            model,
            contents: "stream please",
          })
        ) {
          streamed += chunk.text ?? "";
          if (chunk.usageMetadata) lastUsage = chunk.usageMetadata;
        }
        assertEquals(streamed, "Echo: stream please");
        assertOk(lastUsage, `${type}: usage on the last chunk`);

        const called = await ai.models.generateContent({
          model,
          contents: "weather?",
          config: { tools },
        });
        const calls = called.functionCalls ?? [];
        assertEquals(calls.map((call) => call.name), ["get_weather", "get_time"], type);
        assertEquals(calls[1].args?.city, "City 1");
        assertEquals(called.candidates?.[0].finishReason, "STOP");
        const second = await ai.models.generateContent({
          model,
          config: { tools },
          contents: [
            { role: "user", parts: [{ text: "weather?" }] },
            called.candidates![0].content!,
            {
              role: "user",
              parts: calls.map((call) => ({
                functionResponse: {
                  name: call.name,
                  response: { result: `sunny in ${call.args?.city}` },
                },
              })),
            },
          ],
        });
        assertOk(/sunny in City 0.*sunny in City 1/.test(second.text ?? ""), second.text ?? "");

        const seen = await ai.models.generateContent({
          model,
          contents: [{
            role: "user",
            parts: [{ text: "what is this" }, {
              inlineData: { mimeType: "image/png", data: RED_PNG_B64 },
            }],
          }],
        });
        assertEquals(seen.text, "Echo: what is this [images: 1]");

        const thought = await ai.models.generateContent({
          model,
          contents: "think",
          config: {
            maxOutputTokens: 4000,
            thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 },
          },
        });
        const thoughts = thought.candidates?.[0].content?.parts?.filter((part) => part.thought);
        assertEquals(thoughts?.map((part) => part.text).join(""), "Considering: think", type);
      }
    },
  );
}

Deno.test(
  "streamGenerateContent without alt=sse answers one JSON array, on every channel type",
  serverTest,
  async () => {
    await using s = await setupText();
    for (const type of CHANNEL_TYPES) {
      const response = await postJson(
        s.gw,
        `/v1beta/models/${MODEL_OF[type]}:streamGenerateContent`,
        null,
        { contents: [{ role: "user", parts: [{ text: "array" }] }] },
        { "x-goog-api-key": s.key },
      );
      assertEquals(response.headers.get("content-type"), "application/json", type);
      const chunks = await response.json();
      assertOk(Array.isArray(chunks) && chunks.length >= 1, type);
      const text = chunks.map((
        chunk: { candidates: Array<{ content: { parts: Array<{ text?: string }> } }> },
      ) => chunk.candidates[0].content.parts.map((part) => part.text ?? "").join("")).join("");
      assertEquals(text, "Echo: array", type);
      assertEquals(chunks.at(-1).candidates[0].finishReason, "STOP");
      assertOk(chunks.at(-1).usageMetadata.totalTokenCount > 0);
    }
  },
);
