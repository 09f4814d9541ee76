/**
 * Embedding models on `bedrock` channels end to end: the real gateway, the Bedrock simulator
 * (tests/upstream/bedrock.ts and bedrock_embeddings.ts, which check every signature and every
 * body) and the official SDKs: openai `embeddings.create` (floats and base64, Titan with
 * dimensions, Cohere with several inputs) and @google/genai `models.embedContent` with a task
 * type; Titan's token counts billed, Cohere's estimate billed (it counts none); the channel's Test
 * button; bad input a 4xx in each interface's envelope with nothing charged or sent; the wallet
 * against the receipts.
 */

import OpenAI from "openai";
import { GoogleGenAI } from "@google/genai";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest, startTestGateway } from "../helpers/gateway.ts";
import { EMBEDDING_PRICE, recordOf } from "../helpers/embedding_setup.ts";
import { walletMatchesReceipts } from "../helpers/wallet_receipts.ts";
import {
  BEDROCK_TEST_ACCESS_KEY,
  BEDROCK_TEST_SECRET,
  startBedrockUpstream,
} from "../upstream/bedrock.ts";
import {
  BEDROCK_TEST_COHERE,
  BEDROCK_TEST_COHERE_V4,
  BEDROCK_TEST_TITAN,
  cohereVector,
} from "../upstream/bedrock_embeddings.ts";
import { simulatedVector } from "../upstream/embedding_vectors.ts";
import { simulatedTokens } from "../upstream/openai_embeddings.ts";
import { vectorToBase64 } from "../../core/embeddings/vector_encoding.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const START_BALANCE = 10_000_000;
const API_KEY = "ABSKbedrock-api-key-for-tests";
/** The gateway's estimate when an upstream counts no tokens: 4 characters a token, per input. */
const estimate = (texts: string[]) =>
  texts.reduce((sum, text) => sum + Math.max(1, Math.ceil(text.length / 4)), 0);

async function setup() {
  await using stack = new AsyncDisposableStack();
  const bedrock = stack.use(startBedrockUpstream({ apiKeys: [API_KEY] }));
  const gw = stack.use(await startTestGateway());
  const models: Record<string, string> = {
    "e-titan": BEDROCK_TEST_TITAN,
    "e-cohere": BEDROCK_TEST_COHERE,
    "e-cohere4": BEDROCK_TEST_COHERE_V4,
  };
  for (const model of Object.keys(models)) {
    await gw.putModel(model, { kind: "embedding", price: EMBEDDING_PRICE });
  }
  // Titan signed with SigV4; Cohere with a Bedrock API key.
  await gw.addChannel({
    name: "bedrock-titan",
    type: "bedrock",
    base_url: bedrock.endpoint,
    region: bedrock.region,
    keys: [`${BEDROCK_TEST_ACCESS_KEY}:${BEDROCK_TEST_SECRET}`],
    models: ["e-titan"],
    model_map: { "e-titan": BEDROCK_TEST_TITAN },
  });
  await gw.addChannel({
    name: "bedrock-cohere",
    type: "bedrock",
    base_url: bedrock.endpoint,
    bedrock_auth: "api-key",
    keys: [API_KEY],
    models: ["e-cohere", "e-cohere4"],
    model_map: { "e-cohere": BEDROCK_TEST_COHERE, "e-cohere4": BEDROCK_TEST_COHERE_V4 },
  });
  const { id, key } = await gw.createKey({ balance: START_BALANCE });
  const owned = stack.move();
  const close = () => owned.disposeAsync();
  return {
    bedrock,
    gw,
    keyId: id,
    key,
    startBalance: START_BALANCE,
    openai: new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 }),
    genai: new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gw.url } }),
    close,
    [Symbol.asyncDispose]: close,
  };
}

Deno.test(
  "bedrock embeddings: the openai SDK on Titan (dimensions, one call an input, floats and base64, its token counts billed) and Cohere (several inputs in one call, the estimate billed)",
  serverTest,
  async () => {
    await using s = await setup();
    const texts = ["The quick brown fox", "jumps over the lazy dog", "again"];

    const { data: titan, response } = await s.openai.embeddings.create({
      model: "e-titan",
      input: texts,
      dimensions: 256,
      encoding_format: "float",
      user: "someone",
    }).withResponse();
    assertEquals(
      titan.data.map((item) => item.embedding),
      texts.map((text) => simulatedVector(BEDROCK_TEST_TITAN, text, 256)),
    );
    const tokens = texts.reduce((sum, text) => sum + simulatedTokens(text), 0);
    assertEquals(titan.usage, { prompt_tokens: tokens, total_tokens: tokens });
    assertEquals(response.headers.get("x-gateway-usage-source"), "upstream");
    assertEquals(response.headers.get("x-gateway-ignored-fields"), "user");
    const sent = s.bedrock.requests.filter((request) => request.modelId === BEDROCK_TEST_TITAN);
    assertEquals(sent.map((request) => request.auth), ["sigv4", "sigv4", "sigv4"]);
    // One call an input, sent at once (so in any order).
    assertEquals(sent.map((request) => request.body.inputText).sort(), [...texts].sort());
    for (const { body } of sent) {
      assertEquals(body, {
        inputText: body.inputText,
        dimensions: 256,
        normalize: true,
        embeddingTypes: ["float"],
      });
    }
    const record = await recordOf(s.gw, response.headers.get("x-request-id")!);
    assertEquals(record.usage_source, "upstream");
    assertEquals(record.receipt.units.input_tokens, tokens);

    // base64 asked: made by the gateway from Titan's numbers (its full 1,024).
    const base64 = await s.openai.embeddings.create({
      model: "e-titan",
      input: "again",
      encoding_format: "base64",
    });
    assertEquals(
      base64.data[0].embedding as unknown as string,
      vectorToBase64(simulatedVector(BEDROCK_TEST_TITAN, "again", 1024)),
    );
    // The SDK's default (base64, decoded by the SDK).
    const decoded = await s.openai.embeddings.create({ model: "e-titan", input: "again" });
    assertEquals(decoded.data[0].embedding, simulatedVector(BEDROCK_TEST_TITAN, "again", 1024));

    const before = s.bedrock.requests.length;
    const { data: cohere, response: cohereResponse } = await s.openai.embeddings.create({
      model: "e-cohere",
      input: texts,
      encoding_format: "float",
    }).withResponse();
    assertEquals(
      cohere.data.map((item) => item.embedding),
      texts.map((text) => cohereVector(BEDROCK_TEST_COHERE, "search_document", text, 1024)),
    );
    const calls = s.bedrock.requests.slice(before);
    assertEquals(calls.length, 1);
    assertEquals(calls[0].auth, "api-key");
    assertEquals(calls[0].body, {
      texts,
      input_type: "search_document",
      embedding_types: ["float"],
    });
    assertEquals(cohere.usage.prompt_tokens, estimate(texts));
    assertEquals(cohereResponse.headers.get("x-gateway-usage-source"), "estimate");

    // Cohere v4 makes the asked length.
    const v4 = await s.openai.embeddings.create({
      model: "e-cohere4",
      input: ["short"],
      dimensions: 512,
      encoding_format: "float",
    });
    assertEquals(
      v4.data[0].embedding,
      cohereVector(BEDROCK_TEST_COHERE_V4, "search_document", "short", 512),
    );
    assertEquals(s.bedrock.requests.at(-1)!.body.output_dimension, 512);
    assertOk(s.bedrock.requests.every((request) => !request.refused));
    await walletMatchesReceipts(s);
  },
);

Deno.test(
  "bedrock embeddings: more than 96 inputs to Cohere are several calls, in order",
  serverTest,
  async () => {
    await using s = await setup();
    const texts = Array.from({ length: 150 }, (_, i) => `document number ${i}`);
    const answer = await s.openai.embeddings.create({
      model: "e-cohere",
      input: texts,
      encoding_format: "float",
    });
    assertEquals(
      answer.data.map((item) => item.embedding),
      texts.map((text) => cohereVector(BEDROCK_TEST_COHERE, "search_document", text, 1024)),
    );
    assertEquals(
      s.bedrock.requests.map((request) => request.body.texts.length).sort(),
      [54, 96],
    );
    await walletMatchesReceipts(s);
  },
);

Deno.test(
  "bedrock embeddings: @google/genai embedContent with a task type: Cohere's input_type, Titan's outputDimensionality, taskType named where it cannot be honoured",
  serverTest,
  async () => {
    await using s = await setup();
    const texts = ["what is a fox?", "where do foxes live?"];
    const query = await s.genai.models.embedContent({
      model: "e-cohere",
      contents: texts,
      config: { taskType: "RETRIEVAL_QUERY" },
    });
    assertEquals(
      query.embeddings!.map((embedding) => embedding.values),
      texts.map((text) => cohereVector(BEDROCK_TEST_COHERE, "search_query", text, 1024)),
    );
    assertEquals(s.bedrock.requests[0].body.input_type, "search_query");
    const queryHeaders = query.sdkHttpResponse!.headers!;
    assertEquals(queryHeaders["x-gateway-ignored-fields"], undefined);
    const queryRecord = await recordOf(s.gw, queryHeaders["x-request-id"]);
    assertEquals(queryRecord.interface, "gemini-embeddings");
    assertEquals(queryRecord.usage_source, "estimate");
    assertEquals(queryRecord.receipt.units.input_tokens, estimate(texts));

    const clustering = await s.genai.models.embedContent({
      model: "e-cohere",
      contents: "one fox",
      config: { taskType: "CLUSTERING" },
    });
    assertEquals(
      clustering.embeddings![0].values,
      cohereVector(BEDROCK_TEST_COHERE, "clustering", "one fox", 1024),
    );

    const titan = await s.genai.models.embedContent({
      model: "e-titan",
      contents: "one fox",
      config: { taskType: "RETRIEVAL_DOCUMENT", outputDimensionality: 512 },
    });
    assertEquals(
      titan.embeddings![0].values,
      simulatedVector(BEDROCK_TEST_TITAN, "one fox", 512),
    );
    const titanHeaders = titan.sdkHttpResponse!.headers!;
    assertEquals(titanHeaders["x-gateway-ignored-fields"], "taskType");
    const titanRecord = await recordOf(s.gw, titanHeaders["x-request-id"]);
    assertEquals(titanRecord.usage_source, "upstream");
    assertEquals(titanRecord.receipt.units.input_tokens, simulatedTokens("one fox"));
    await walletMatchesReceipts(s);
  },
);

Deno.test(
  "bedrock embeddings: the channel's Test button embeds one short text with Titan and with Cohere",
  serverTest,
  async () => {
    await using s = await setup();
    const channels: Json[] = (await s.gw.admin("GET", "/admin/channels")).body.data;
    for (const model of ["e-titan", "e-cohere"]) {
      const channel = channels.find((entry) => entry.models.includes(model));
      const before = s.bedrock.requests.length;
      const tested = await s.gw.admin("POST", `/admin/channels/${channel.id}/test`, { model });
      assertEquals(tested.status, 200, JSON.stringify(tested.body));
      assertEquals(tested.body.ok, true, JSON.stringify(tested.body));
      assertEquals(
        tested.body.call,
        "one embedding of a short text (billed upstream, not by the gateway)",
      );
      assertEquals(s.bedrock.requests.length, before + 1);
      assertEquals(s.bedrock.requests.at(-1)!.refused, undefined);
    }
    // Nothing billed to any key.
    const records = await walletMatchesReceipts(s);
    assertEquals(records.length, 0);
  },
);

Deno.test(
  "bedrock embeddings: a length the model does not make, an over-long Cohere v3 text and an empty input are 4xx in each interface's envelope, nothing sent or charged",
  serverTest,
  async () => {
    await using s = await setup();
    const post = (path: string, body: unknown, headers: Record<string, string>) =>
      fetch(`${s.gw.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
    const bearer = { authorization: `Bearer ${s.key}` };
    const openaiCases: Array<[string, Json, string]> = [
      ["titan 300", { model: "e-titan", input: "a", dimensions: 300 }, "dimensions"],
      ["cohere v3 512", { model: "e-cohere", input: "a", dimensions: 512 }, "dimensions"],
      ["cohere v4 2048", { model: "e-cohere4", input: "a", dimensions: 2048 }, "dimensions"],
      ["cohere v3 long", { model: "e-cohere", input: ["a", "x".repeat(2049)] }, "input"],
      ["empty", { model: "e-titan", input: "" }, "input"],
      ["empty in a list", { model: "e-cohere", input: ["a", ""] }, "input[1]"],
    ];
    for (const [name, body, param] of openaiCases) {
      const response = await post("/v1/embeddings", body, bearer);
      assertEquals(response.status, 400, name);
      const answer: Json = await response.json();
      assertEquals(answer.error.type, "invalid_request_error", name);
      assertEquals(answer.error.param, param, name);
      assertOk(answer.error.message, name);
    }
    const google = { "x-goog-api-key": s.key };
    const geminiCases: Array<[string, string, Json]> = [
      ["titan 100", "e-titan:embedContent", {
        content: { parts: [{ text: "a" }] },
        outputDimensionality: 100,
      }],
      ["empty", "e-cohere:batchEmbedContents", {
        requests: [{ model: "models/e-cohere", content: { parts: [{ text: "" }] } }],
      }],
    ];
    for (const [name, target, body] of geminiCases) {
      const response = await post(`/v1beta/models/${target}`, body, google);
      assertEquals(response.status, 400, name);
      const answer: Json = await response.json();
      assertEquals(answer.error.code, 400, name);
      assertEquals(answer.error.status, "INVALID_ARGUMENT", name);
    }
    // The SDK sees the same 400.
    let refused: Json;
    try {
      await s.openai.embeddings.create({ model: "e-titan", input: "a", dimensions: 64 });
    } catch (error) {
      refused = error;
    }
    assertEquals(refused?.status, 400);
    assertOk(String(refused.message).includes("256, 512, 1024"), String(refused.message));
    assertEquals(s.bedrock.requests.length, 0);
    const records = await walletMatchesReceipts(s);
    assertOk(records.every((record: Json) => !record.receipt || record.receipt.charged === 0));
  },
);

Deno.test(
  "bedrock embeddings: a model of a family the gateway has no body for is a 400 naming the model, and its Test fails with nothing sent",
  serverTest,
  async () => {
    await using s = await setup();
    await s.gw.putModel("e-image", { kind: "embedding", price: EMBEDDING_PRICE });
    const channel = await s.gw.addChannel({
      name: "bedrock-image",
      type: "bedrock",
      base_url: s.bedrock.endpoint,
      region: s.bedrock.region,
      keys: [`${BEDROCK_TEST_ACCESS_KEY}:${BEDROCK_TEST_SECRET}`],
      models: ["e-image"],
      model_map: { "e-image": "amazon.titan-embed-image-v1" },
    });
    const response = await fetch(`${s.gw.url}/v1/embeddings`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${s.key}` },
      body: JSON.stringify({ model: "e-image", input: "a" }),
    });
    assertEquals(response.status, 400);
    const answer: Json = await response.json();
    assertEquals(answer.error.param, "model");
    assertOk(answer.error.message.includes("amazon.titan-embed-image-v1"), answer.error.message);
    const tested = await s.gw.admin("POST", `/admin/channels/${channel.id}/test`, {
      model: "e-image",
    });
    assertEquals(tested.body.ok, false, JSON.stringify(tested.body));
    assertEquals(s.bedrock.requests.length, 0);
    await walletMatchesReceipts(s);
  },
);
