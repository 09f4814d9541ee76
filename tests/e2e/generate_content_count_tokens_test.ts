/**
 * countTokens (POST /v1beta/models/{m}:countTokens and /v1/models/{m}:countTokens) with
 * @google/genai 2.x and 3.x on every text channel type: counted by the upstream where the channel
 * can (gemini :countTokens, anthropic count_tokens, openai-responses input_tokens), else estimated; both request forms
 * (`contents`, `generateContentRequest`) as the API takes them; a CountTokensResponse; never billed.
 */

import { GoogleGenAI } from "@google/genai";
import { GoogleGenAI as GoogleGenAI3 } from "@google/genai3";
import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { postJson, serverTest } from "../helpers/gateway.ts";
import { CHANNEL_TYPES, MODEL_OF, setupText, type TextSetup } from "../helpers/text_setup.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const WORDS = "count these words please";
/** What the simulators count for WORDS in one user turn: 4 characters a token, 3 a message. */
const UPSTREAM_COUNT = Math.ceil(WORDS.length / 4) + 3;
/** The gateway's documented estimate: 4 characters a token, 4 a message. */
const ESTIMATE = Math.ceil(WORDS.length / 4) + 4;

const SOURCE: Record<string, "upstream" | "estimate"> = {
  openai: "estimate",
  "openai-responses": "upstream",
  anthropic: "upstream",
  gemini: "upstream",
};

function count(s: TextSetup, model: string, body: Json, version = "v1beta") {
  return postJson(s.gw, `/${version}/models/${model}:countTokens`, null, body, {
    "x-goog-api-key": s.key,
  });
}

Deno.test(
  "countTokens with @google/genai 2.x and 3.x on every text channel type: upstream count or estimate, free",
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
    for (const type of CHANNEL_TYPES) {
      const expected = SOURCE[type] === "upstream" ? UPSTREAM_COUNT : ESTIMATE;
      for (const ai of sdks) {
        const counted = await ai.models.countTokens({ model: MODEL_OF[type], contents: WORDS });
        assertEquals(counted.totalTokens, expected, type);
      }
      for (const version of ["v1beta", "v1"]) {
        const raw = await count(s, MODEL_OF[type], {
          contents: [{ role: "user", parts: [{ text: WORDS }] }],
        }, version);
        assertEquals(raw.status, 200);
        assertEquals(raw.headers.get("x-gateway-token-count"), SOURCE[type], type);
        const body = await raw.json();
        assertEquals(body.totalTokens, expected, `${type} ${version}`);
        // Only figures the gateway knows: the gemini upstream's modality details, nothing invented.
        assertEquals(
          Object.keys(body).sort(),
          type === "gemini" ? ["promptTokensDetails", "totalTokens"] : ["totalTokens"],
        );
      }
    }
    // What reached the counting upstreams: Google's and Anthropic's own count calls.
    const gemini = s.gemini.requests.filter((request) => request.method === "countTokens");
    assertEquals(gemini.length, 4);
    assertEquals(gemini[0].body, {
      generateContentRequest: {
        contents: [{ role: "user", parts: [{ text: WORDS }] }],
        model: "models/m-gemini-upstream",
      },
    });
    assertEquals(s.anthropic.requests.at(-1)?.path, "/v1/messages/count_tokens");
    assertEquals(s.anthropic.requests.at(-1)?.body.max_tokens, undefined);
    const responses = s.responses.requests.at(-1)!;
    assertEquals(responses.path, "/v1/responses/input_tokens");
    assertEquals(responses.body, {
      model: "m-responses-upstream",
      input: [{ role: "user", content: [{ type: "input_text", text: WORDS }] }],
    });
    assertEquals(s.count("openai"), 0);
    await s.gw.settle();
    await assertNothingCharged(s, 100_000_000, { untouched: true });
  },
);

Deno.test(
  "countTokens: a generateContentRequest counts its system instruction too; both forms or neither is a 400",
  serverTest,
  async () => {
    await using s = await setupText();
    const whole = {
      generateContentRequest: {
        model: `models/${MODEL_OF.gemini}`,
        contents: [{ role: "user", parts: [{ text: WORDS }] }],
        systemInstruction: { parts: [{ text: "You answer in one short sentence, always." }] },
      },
    };
    for (const type of CHANNEL_TYPES) {
      const response = await count(s, MODEL_OF[type], whole);
      const body = await response.json();
      assertEquals(response.status, 200, JSON.stringify(body));
      assertOk(body.totalTokens > UPSTREAM_COUNT + 5, `${type}: ${body.totalTokens}`);
    }
    // Passed through to the gemini upstream with its own model name; converted for anthropic.
    assertEquals(s.lastBody("gemini").generateContentRequest, {
      ...whole.generateContentRequest,
      model: "models/m-gemini-upstream",
    });
    assertEquals(s.lastBody("anthropic").system, "You answer in one short sentence, always.");

    const before = CHANNEL_TYPES.reduce((n, type) => n + s.count(type), 0);
    const bad: Json[] = [
      { contents: whole.generateContentRequest.contents, ...whole },
      {},
      { contents: [] },
      { generateContentRequest: { contents: [{ parts: [] }] } },
      // Google's Developer API takes no top-level systemInstruction (Vertex AI does).
      {
        contents: whole.generateContentRequest.contents,
        systemInstruction: { parts: [{ text: "x" }] },
      },
    ];
    for (const body of bad) {
      const response = await count(s, MODEL_OF.gemini, body);
      const error = (await response.json()).error;
      assertEquals(
        [response.status, error.status],
        [400, "INVALID_ARGUMENT"],
        JSON.stringify(body),
      );
    }
    assertEquals(CHANNEL_TYPES.reduce((n, type) => n + s.count(type), 0), before);
    await s.gw.settle();
    await assertNothingCharged(s, 100_000_000, { untouched: true });
  },
);

Deno.test(
  "countTokens: an upstream that cannot count gives the estimate; image models and messages count_tokens count on gemini too",
  serverTest,
  async () => {
    await using s = await setupText();
    s.gemini.faults.push({ kind: "status", status: 503 });
    const fallback = await count(s, MODEL_OF.gemini, {
      contents: [{ role: "user", parts: [{ text: WORDS }] }],
    });
    assertEquals(fallback.headers.get("x-gateway-token-count"), "estimate");
    assertEquals(await fallback.json(), { totalTokens: ESTIMATE });

    await s.gw.putModel("img-g", { kind: "image", price: { per_image: 1000 } });
    await s.gw.addChannel({
      type: "gemini",
      base_url: s.gemini.baseUrl,
      keys: ["gemini-upstream-test"],
      models: ["img-g"],
    });
    const image = await count(s, "img-g", { contents: [{ parts: [{ text: WORDS }] }] });
    assertEquals(image.headers.get("x-gateway-token-count"), "upstream");
    assertEquals((await image.json()).totalTokens, UPSTREAM_COUNT);

    // The messages interface's count_tokens asks a gemini channel too, converted.
    const messages = await postJson(s.gw, "/v1/messages/count_tokens", null, {
      model: MODEL_OF.gemini,
      messages: [{ role: "user", content: WORDS }],
    }, { "x-api-key": s.key, "anthropic-version": "2023-06-01" });
    assertEquals(messages.headers.get("x-gateway-token-count"), "upstream");
    assertEquals(await messages.json(), { input_tokens: UPSTREAM_COUNT });
    await s.gw.settle();
    await assertNothingCharged(s, 100_000_000, { untouched: true });
  },
);
