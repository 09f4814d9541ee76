/**
 * Embeddings on a `vertex` channel end to end, through the official SDKs: the openai SDK's
 * `embeddings.create` (its default base64, decoded by the SDK, raw base64, and floats with
 * `dimensions`) and @google/genai's `models.embedContent` (taskType, title,
 * outputDimensionality), on text-embedding-005 (a large batch split into calls) and
 * gemini-embedding-001 (one instance a call) through Vertex AI's `:predict`; usage from the
 * answer's token counts, the wallet against the receipts, the channel's Test button, and bad
 * inputs refused at no charge.
 */

import OpenAI from "openai";
import { GoogleGenAI } from "@google/genai";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import { setupVertex, type VertexSetup, walletMatchesReceipts } from "../helpers/vertex_setup.ts";
import { EMBEDDING_PRICE, recordOf } from "../helpers/embedding_setup.ts";
import { simulatedVector } from "../upstream/embedding_vectors.ts";
import { vertexEmbedTokens } from "../upstream/vertex_embeddings.ts";
import { vectorFromBase64 } from "../../core/embeddings/vector_encoding.ts";
import { EMBEDDING_CALLS_AT_ONCE } from "../../core/embeddings/embedding_service.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** A second vertex channel on the same simulator with two embedding models. */
async function withEmbeddingChannel(s: VertexSetup): Promise<string> {
  for (const model of ["ve-text", "ve-gemini"]) {
    await s.gw.putModel(model, { kind: "embedding", price: EMBEDDING_PRICE });
  }
  const channel = await s.gw.addChannel({
    ...s.channelFields(),
    name: "vertex-embeddings",
    models: ["ve-text", "ve-gemini"],
    model_map: { "ve-text": "text-embedding-005", "ve-gemini": "gemini-embedding-001" },
  });
  return channel.id;
}

const predictCalls = (s: VertexSetup) =>
  s.sim.requests.filter((request) => request.method === "predict");

const tokensOf = (texts: string[]) => texts.reduce((sum, text) => sum + vertexEmbedTokens(text), 0);

Deno.test(
  "vertex embeddings: the openai SDK's base64 and float answers with dimensions, billed from Vertex's token counts",
  serverTest,
  async () => {
    await using s = await setupVertex();
    await withEmbeddingChannel(s);
    const openai = new OpenAI({ apiKey: s.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
    const inputs = ["The quick brown fox", "jumps over the lazy dog", "again"];

    // The SDK's default: base64 asked (made by the gateway), decoded by the SDK.
    const { data: decoded, response } = await openai.embeddings.create({
      model: "ve-text",
      input: inputs,
      dimensions: 16,
      user: "end-user-7",
    }).withResponse();
    assertEquals(
      decoded.data.map((item) => item.embedding),
      inputs.map((text) => simulatedVector("text-embedding-005", text, 16)),
    );
    assertEquals(decoded.model, "ve-text");
    assertEquals(decoded.usage, {
      prompt_tokens: tokensOf(inputs),
      total_tokens: tokensOf(inputs),
    });
    assertEquals(response.headers.get("x-gateway-usage-source"), "upstream");
    assertEquals(response.headers.get("x-gateway-ignored-fields"), "user");
    const [sent] = predictCalls(s);
    assertEquals(sent.publisher, "google");
    assertEquals(sent.model, "text-embedding-005");
    assertOk(sent.token?.startsWith("ya29."), "a bearer token from the service account key");
    assertEquals(sent.body, {
      instances: inputs.map((content) => ({ content })),
      parameters: { outputDimensionality: 16 },
    });

    // Raw base64, as a client that asks for it gets it.
    const raw = await openai.embeddings.create({
      model: "ve-text",
      input: "The quick brown fox",
      encoding_format: "base64",
    });
    const vector = vectorFromBase64(raw.data[0].embedding as unknown as string);
    assertEquals(vector, simulatedVector("text-embedding-005", "The quick brown fox", 768));

    const floats = await openai.embeddings.create({
      model: "ve-text",
      input: "again",
      encoding_format: "float",
      dimensions: 64,
    });
    assertEquals(floats.data[0].embedding, simulatedVector("text-embedding-005", "again", 64));
    assertEquals(floats.usage.prompt_tokens, vertexEmbedTokens("again"));

    const record = await recordOf(s.gw, response.headers.get("x-request-id")!);
    assertEquals(record.interface, "openai-embeddings");
    assertEquals(record.usage_source, "upstream");
    assertEquals(record.receipt.units, { input_tokens: tokensOf(inputs) });
    await walletMatchesReceipts(s);
  },
);

Deno.test(
  "vertex embeddings: @google/genai embedContent with taskType, title and outputDimensionality; gemini-embedding-001 one instance a call",
  serverTest,
  async () => {
    await using s = await setupVertex();
    await withEmbeddingChannel(s);
    const ai = new GoogleGenAI({ apiKey: s.key, httpOptions: { baseUrl: s.gw.url } });
    const texts = ["first document", "second document", "third"];
    const answer = await ai.models.embedContent({
      model: "ve-gemini",
      contents: texts,
      config: { taskType: "RETRIEVAL_DOCUMENT", title: "Handbook", outputDimensionality: 32 },
    });
    assertEquals(
      answer.embeddings!.map((embedding) => embedding.values),
      texts.map((text) => simulatedVector("gemini-embedding-001", text, 32)),
    );
    const calls = predictCalls(s);
    assertEquals(calls.length, 3);
    assertEquals(
      calls.map((call) => call.body as Json).sort((a, b) =>
        a.instances[0].content.localeCompare(b.instances[0].content)
      ),
      texts.map((content) => ({
        instances: [{ content, task_type: "RETRIEVAL_DOCUMENT", title: "Handbook" }],
        parameters: { outputDimensionality: 32 },
      })).sort((a, b) => a.instances[0].content.localeCompare(b.instances[0].content)),
    );
    const headers = answer.sdkHttpResponse!.headers!;
    assertEquals(headers["x-gateway-ignored-fields"], undefined);
    const record = await recordOf(s.gw, headers["x-request-id"]);
    assertEquals(record.interface, "gemini-embeddings");
    assertEquals(record.usage_source, "upstream");
    assertEquals(record.receipt.units, { input_tokens: tokensOf(texts) });

    // A title with another task type: Vertex takes none, so it is left out and named.
    const query = await ai.models.embedContent({
      model: "ve-text",
      contents: "where is the handbook?",
      config: { taskType: "RETRIEVAL_QUERY", title: "ignored" },
    });
    assertEquals(
      query.embeddings![0].values,
      simulatedVector("text-embedding-005", "where is the handbook?", 768),
    );
    assertEquals(predictCalls(s)[3].body.instances, [
      { content: "where is the handbook?", task_type: "RETRIEVAL_QUERY" },
    ]);
    assertEquals(query.sdkHttpResponse!.headers!["x-gateway-ignored-fields"], "title");
    await walletMatchesReceipts(s);
  },
);

Deno.test(
  "vertex embeddings: 300 inputs make two calls of 250 and 50, their vectors in order and their token counts summed",
  serverTest,
  async () => {
    await using s = await setupVertex();
    await withEmbeddingChannel(s);
    const openai = new OpenAI({ apiKey: s.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
    const inputs = Array.from({ length: 300 }, (_, i) => `input number ${i}`);
    const answer = await openai.embeddings.create({
      model: "ve-text",
      input: inputs,
      encoding_format: "float",
      dimensions: 4,
    });
    assertEquals(
      predictCalls(s).map((call) => (call.body.instances as unknown[]).length)
        .sort((a, b) => b - a),
      [250, 50],
    );
    assertEquals(answer.data.map((item) => item.index), inputs.map((_, i) => i));
    assertEquals(
      answer.data.map((item) => item.embedding),
      inputs.map((text) => simulatedVector("text-embedding-005", text, 4)),
    );
    assertEquals(answer.usage.prompt_tokens, tokensOf(inputs));
    await walletMatchesReceipts(s);
  },
);

Deno.test(
  "vertex embeddings: 40 inputs on a one-a-call model are 40 calls, never more than 8 under way",
  serverTest,
  async () => {
    await using s = await setupVertex();
    await withEmbeddingChannel(s);
    const openai = new OpenAI({ apiKey: s.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
    const inputs = Array.from({ length: 40 }, (_, i) => `line ${i}`);
    const answer = await openai.embeddings.create({
      model: "ve-gemini",
      input: inputs,
      encoding_format: "float",
      dimensions: 4,
    });
    assertEquals(
      answer.data.map((item) => item.embedding),
      inputs.map((text) => simulatedVector("gemini-embedding-001", text, 4)),
    );
    assertEquals(predictCalls(s).length, 40);
    // Sent several at a time, never all at once.
    assertOk(s.sim.predictsAtOnce > 1, `${s.sim.predictsAtOnce}`);
    assertOk(s.sim.predictsAtOnce <= 8, `${s.sim.predictsAtOnce}`);
    assertEquals(EMBEDDING_CALLS_AT_ONCE, 8);
    await walletMatchesReceipts(s);
  },
);

Deno.test(
  "vertex embeddings: the channel's Test button embeds one short text, billed nowhere",
  serverTest,
  async () => {
    await using s = await setupVertex();
    const channelId = await withEmbeddingChannel(s);
    const path = `/admin/channels/${channelId}/test`;
    const passed = await s.gw.admin("POST", path, { model: "ve-text" });
    assertEquals(passed.status, 200, JSON.stringify(passed.body));
    assertEquals(
      { ...passed.body, latency_ms: 0 },
      {
        ok: true,
        status: 200,
        latency_ms: 0,
        model: "ve-text",
        channel_id: channelId,
        call: "one embedding of a short text (billed upstream, not by the gateway)",
      },
    );
    assertEquals(predictCalls(s).map((call) => call.body), [{ instances: [{ content: "ping" }] }]);
    s.sim.predictFaults.push({ status: 500, message: "embedding broke" });
    const failed = await s.gw.admin("POST", path, { model: "ve-gemini" });
    assertEquals([failed.body.ok, failed.body.status], [false, 500]);
    assertOk(failed.body.error.includes("embedding broke"), failed.body.error);
    await s.gw.settle();
    assertEquals((await s.gw.admin("GET", "/admin/requests")).body.data, []);
    assertEquals(await s.gw.balance(s.keyId), s.startBalance);
  },
);

Deno.test(
  "vertex embeddings: bad inputs are 4xx with nothing charged",
  serverTest,
  async () => {
    await using s = await setupVertex();
    await withEmbeddingChannel(s);
    const post = (body: unknown) =>
      fetch(`${s.gw.url}/v1/embeddings`, {
        method: "POST",
        headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const cases: Array<[string, unknown, number]> = [
      ["an empty input", { model: "ve-text", input: "" }, 400],
      ["2,049 inputs", { model: "ve-text", input: Array(2049).fill("a") }, 400],
      ["token ids", { model: "ve-text", input: [1, 2, 3] }, 400],
      ["dimensions past the model's 768", { model: "ve-text", input: "a", dimensions: 769 }, 400],
    ];
    for (const [name, body, status] of cases) {
      const response = await post(body);
      assertEquals(response.status, status, name);
      const answer: Json = await response.json();
      assertOk(typeof answer.error?.message === "string", name);
    }
    // Only the one Vertex judged reached it.
    assertEquals(predictCalls(s).length, 1);
    const gemini = await fetch(`${s.gw.url}/v1beta/models/ve-gemini:embedContent`, {
      method: "POST",
      headers: { "x-goog-api-key": s.key, "content-type": "application/json" },
      body: JSON.stringify({ content: { parts: [{ text: "  " }] } }),
    });
    assertEquals(gemini.status, 400);
    assertEquals((await gemini.json()).error.code, 400);
    const records = await walletMatchesReceipts(s);
    assertOk(records.every((record: Json) => !record.receipt?.charged));
  },
);
