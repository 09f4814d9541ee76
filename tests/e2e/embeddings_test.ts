/**
 * POST /v1/embeddings end to end with the official openai SDK and raw requests, on an `openai`
 * channel (passed through) and a `gemini` channel (converted): float and base64 answers, the
 * `dimensions` of each upstream, usage billed from the upstream (or estimated when Gemini reports
 * none), receipts that add up to what the wallet paid, and bad inputs refused at no charge.
 */

import OpenAI from "openai";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import {
  EMBEDDING_PRICE,
  recordOf,
  setupEmbeddings,
  walletMatchesReceipts,
} from "../helpers/embedding_setup.ts";
import { simulatedVector } from "../upstream/embedding_vectors.ts";
import { simulatedTokens } from "../upstream/openai_embeddings.ts";
import { vectorFromBase64 } from "../../core/embeddings/vector_encoding.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const client = (url: string, key: string) =>
  new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 });

/** POSTs `body` to /v1/embeddings with `key`. */
async function post(url: string, key: string, body: unknown): Promise<Response> {
  return await fetch(`${url}/v1/embeddings`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

Deno.test(
  "embeddings: the openai SDK's default (base64, decoded by the SDK) and float on an openai channel, billed from the upstream's usage",
  serverTest,
  async () => {
    await using s = await setupEmbeddings();
    const openai = client(s.gw.url, s.key);
    const inputs = ["The quick brown fox", "jumps over the lazy dog"];
    const { data: decoded, response } = await openai.embeddings.create({
      model: "e-openai",
      input: inputs,
    }).withResponse();
    // The SDK asks for base64 unless told otherwise, and decodes it.
    assertEquals(s.openai.requests[0].encoding_format, "base64");
    assertEquals(decoded.object, "list");
    assertEquals(decoded.model, "e-openai");
    assertEquals(decoded.data.map((item) => item.index), [0, 1]);
    const expected = inputs.map((text) => simulatedVector("text-embedding-3-small", text, 1536));
    assertEquals(decoded.data.map((item) => item.embedding), expected);
    const tokens = inputs.reduce((sum, text) => sum + simulatedTokens(text), 0);
    assertEquals(decoded.usage, { prompt_tokens: tokens, total_tokens: tokens });
    assertEquals(response.headers.get("x-gateway-usage-source"), "upstream");

    const floats = await openai.embeddings.create({
      model: "e-openai",
      input: "The quick brown fox",
      encoding_format: "float",
      dimensions: 256,
    });
    assertEquals(s.openai.requests[1].encoding_format, "float");
    assertEquals(s.openai.requests[1].dimensions, 256);
    assertEquals(
      floats.data[0].embedding,
      simulatedVector("text-embedding-3-small", inputs[0], 256),
    );

    const record = await recordOf(s.gw, response.headers.get("x-request-id")!);
    assertEquals(record.interface, "openai-embeddings");
    assertEquals(record.usage_source, "upstream");
    assertEquals(record.receipt.kind, "embedding");
    assertEquals(record.receipt.units, { input_tokens: tokens });
    assertEquals(record.receipt.amount, tokens * EMBEDDING_PRICE.input / 1_000_000);
    assertEquals(
      record.receipt.formula,
      `ceil(${tokens} input × ${EMBEDDING_PRICE.input} / 1000000) = ${record.receipt.amount}`,
    );
    const records = await walletMatchesReceipts(s);
    assertEquals(records.length, 2);
  },
);

Deno.test(
  "embeddings: a raw base64 request answers OpenAI's little-endian float32 base64, on both channel types",
  serverTest,
  async () => {
    await using s = await setupEmbeddings();
    for (
      const [model, upstreamModel] of [
        ["e-openai", "text-embedding-3-small"],
        ["e-gemini", "gemini-embedding-001"],
      ]
    ) {
      const response = await post(s.gw.url, s.key, {
        model,
        input: ["alpha", "beta"],
        encoding_format: "base64",
        dimensions: 8,
      });
      assertEquals(response.status, 200);
      const body: Json = await response.json();
      assertEquals(Object.keys(body).sort(), ["data", "model", "object", "usage"]);
      assertEquals(Object.keys(body.usage).sort(), ["prompt_tokens", "total_tokens"]);
      for (const [index, text] of ["alpha", "beta"].entries()) {
        const item = body.data[index];
        assertEquals(Object.keys(item).sort(), ["embedding", "index", "object"]);
        assertEquals(typeof item.embedding, "string");
        assertEquals(vectorFromBase64(item.embedding), simulatedVector(upstreamModel, text, 8));
        // Little-endian float32, as OpenAI's: the first four bytes are the first value.
        const bytes = Uint8Array.fromBase64(item.embedding);
        assertEquals(
          new DataView(bytes.buffer).getFloat32(0, true),
          simulatedVector(upstreamModel, text, 8)[0],
        );
      }
    }
    // Gemini answered numbers: the base64 was made by the gateway, and dimensions was converted.
    assertEquals(s.gemini.requests[0].method, "batchEmbedContents");
    assertEquals(
      s.gemini.requests[0].body.requests.map((request: Json) => request.outputDimensionality),
      [8, 8],
    );
    await walletMatchesReceipts(s);
  },
);

Deno.test(
  "embeddings: on a gemini channel the usage is the documented estimate (4 characters a token, rounded up per input), marked estimated; user is named as ignored",
  serverTest,
  async () => {
    await using s = await setupEmbeddings();
    const inputs = ["a", "twelve chars", "a somewhat longer sentence to embed"];
    const { data, response } = await client(s.gw.url, s.key).embeddings.create({
      model: "e-gemini",
      input: inputs,
      encoding_format: "float",
      user: "user-42",
    }).withResponse();
    const estimate = inputs.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
    assertEquals(data.usage, { prompt_tokens: estimate, total_tokens: estimate });
    assertEquals(
      data.data.map((item) => item.embedding),
      inputs.map((text) => simulatedVector("gemini-embedding-001", text, 3072)),
    );
    assertEquals(response.headers.get("x-gateway-usage-source"), "estimate");
    assertEquals(response.headers.get("x-gateway-ignored-fields"), "user");
    const sent = s.gemini.requests[0].body.requests;
    assertEquals(sent[1], {
      model: "models/gemini-embedding-001",
      content: { parts: [{ text: "twelve chars" }] },
    });
    const record = await recordOf(s.gw, response.headers.get("x-request-id")!);
    assertEquals(record.usage_source, "estimate");
    assertEquals(record.receipt.units.input_tokens, estimate);
    assertEquals(record.receipt.amount, estimate * 3);
    await walletMatchesReceipts(s);
  },
);

Deno.test(
  "embeddings: token-id inputs pass through to an openai channel unchanged; a model served only by gemini refuses them with a 400",
  serverTest,
  async () => {
    await using s = await setupEmbeddings();
    const one = await post(s.gw.url, s.key, {
      model: "e-openai",
      input: [1, 2, 3],
      encoding_format: "float",
    });
    assertEquals(one.status, 200);
    assertEquals(s.openai.requests[0].input, [1, 2, 3]);
    assertEquals((await one.json()).usage.prompt_tokens, 3);
    const many = await post(s.gw.url, s.key, { model: "e-openai", input: [[5, 6], [7]] });
    assertEquals(many.status, 200);
    assertEquals(s.openai.requests[1].input, [[5, 6], [7]]);
    assertEquals((await many.json()).data.length, 2);
    const gemini = await post(s.gw.url, s.key, { model: "e-gemini", input: [[5, 6]] });
    assertEquals(gemini.status, 400);
    const error = (await gemini.json()).error;
    assertEquals([error.type, error.param], ["invalid_request_error", "input"]);
    assertEquals(s.gemini.requests.length, 0);
    await walletMatchesReceipts(s);
  },
);

Deno.test(
  "embeddings: bad inputs are 400s in OpenAI's envelope, nothing reaches the upstream and nothing is charged",
  serverTest,
  async () => {
    await using s = await setupEmbeddings();
    const cases: Array<[string, unknown, string | null]> = [
      ["empty array", { model: "e-openai", input: [] }, "input"],
      ["2,049 inputs", { model: "e-openai", input: Array(2049).fill("x") }, "input"],
      ["empty string", { model: "e-openai", input: "" }, "input"],
      ["an empty string entry", { model: "e-openai", input: ["a", ""] }, "input[1]"],
      ["mixed types", { model: "e-openai", input: ["a", 1] }, "input[1]"],
      ["an object", { model: "e-openai", input: { text: "a" } }, "input"],
      ["no input", { model: "e-openai" }, "input"],
      ["negative token", { model: "e-openai", input: [1, -2] }, "input[1]"],
      ["empty token list", { model: "e-openai", input: [[1], []] }, "input[1]"],
      [
        "bad encoding",
        { model: "e-openai", input: "a", encoding_format: "int8" },
        "encoding_format",
      ],
      ["zero dimensions", { model: "e-openai", input: "a", dimensions: 0 }, "dimensions"],
      ["string dimensions", { model: "e-openai", input: "a", dimensions: "8" }, "dimensions"],
      ["no model", { input: "a" }, "model"],
      ["not an object", [], null],
    ];
    for (const [name, body, param] of cases) {
      const response = await post(s.gw.url, s.key, body);
      assertEquals(response.status, 400, name);
      const answer: Json = await response.json();
      assertEquals(answer.error.type, "invalid_request_error", name);
      assertEquals(answer.error.param ?? null, param, name);
      assertOk(answer.error.message.length > 0, name);
    }
    const malformed = await post(s.gw.url, s.key, "{not json");
    assertEquals(malformed.status, 400);
    const unknown = await post(s.gw.url, s.key, { model: "no-such-model", input: "a" });
    assertEquals(unknown.status, 404);
    assertEquals((await unknown.json()).error.code, "model_not_found");
    const chatModel = await post(s.gw.url, s.key, { model: "e-openai", input: "a" });
    assertEquals(chatModel.status, 200);
    await chatModel.body?.cancel();
    assertEquals(s.openai.requests.length, 1);
    // The openai SDK's own path: a 400 is thrown as its BadRequestError.
    const error = await client(s.gw.url, s.key).embeddings.create({ model: "e-openai", input: [] })
      .then(() => null, (error) => error);
    assertOk(error instanceof OpenAI.BadRequestError);
    const records = await walletMatchesReceipts(s);
    const billed = records.filter((record: Json) => record.receipt);
    assertEquals(billed.length, 1);
    assertEquals(await s.gw.balance(s.keyId), s.startBalance - billed[0].receipt.charged);
  },
);

Deno.test(
  "embeddings: the upstream's own refusal (dimensions on text-embedding-ada-002) is a 400 with its message, and costs nothing",
  serverTest,
  async () => {
    await using s = await setupEmbeddings();
    const refused = await post(s.gw.url, s.key, { model: "e-ada", input: "a", dimensions: 64 });
    assertEquals(refused.status, 400);
    const error = (await refused.json()).error;
    assertOk(error.message.includes("does not support specifying dimensions"), error.message);
    const plain = await post(s.gw.url, s.key, { model: "e-ada", input: "a" });
    assertEquals(plain.status, 200);
    assertEquals((await plain.json()).data[0].embedding.length, 1536);
    await walletMatchesReceipts(s);
    assertEquals(await s.gw.balance(s.keyId), s.startBalance - simulatedTokens("a") * 3);
  },
);

Deno.test(
  "embeddings: a 500 or 429 on the first channel fails over to the second; both failing is a 502/429 at no charge",
  serverTest,
  async () => {
    await using s = await setupEmbeddings();
    // A second channel for e-openai: the gemini upstream.
    const second = await s.gw.addChannel({
      name: "second",
      type: "gemini",
      base_url: s.gemini.baseUrl,
      keys: ["gemini-upstream-key"],
      models: ["e-openai"],
      model_map: { "e-openai": "gemini-embedding-001" },
      priority: -1,
      breaker: { enabled: false },
    });
    for (const status of [500, 429]) {
      s.openai.faults.push({ status });
      const response = await post(s.gw.url, s.key, { model: "e-openai", input: "failover" });
      assertEquals(response.status, 200, `after a ${status}`);
      assertEquals(response.headers.get("x-gateway-channel"), second.id);
      const body: Json = await response.json();
      assertEquals(
        body.data[0].embedding,
        simulatedVector("gemini-embedding-001", "failover", 3072),
      );
    }
    s.openai.faults.push({ status: 500 });
    s.gemini.faults.push({ status: 500 });
    const failed = await post(s.gw.url, s.key, { model: "e-openai", input: "x" });
    assertEquals(failed.status, 502);
    assertEquals((await failed.json()).error.type, "api_error");
    s.openai.faults.push({ status: 429, retryAfter: "3" });
    s.gemini.faults.push({ status: 429 });
    const limited = await post(s.gw.url, s.key, { model: "e-openai", input: "x" });
    assertEquals(limited.status, 429);
    await limited.body?.cancel();
    const records = await walletMatchesReceipts(s);
    assertEquals(records.map((record: Json) => record.status), [200, 200, 502, 429]);
    assertEquals(records[0].upstream_attempts.map((a: Json) => a.outcome), ["failed", "ok"]);
  },
);

Deno.test(
  "embeddings: 2,048 inputs, the most OpenAI takes, are served whole on both channel types (Gemini in calls of 100)",
  serverTest,
  async () => {
    await using s = await setupEmbeddings();
    const input = Array.from({ length: 2048 }, (_, i) => `chunk ${i}`);
    for (const model of ["e-openai", "e-gemini"]) {
      const response = await post(s.gw.url, s.key, {
        model,
        input,
        dimensions: 4,
        encoding_format: "float",
      });
      assertEquals(response.status, 200, model);
      const body: Json = await response.json();
      assertEquals(body.data.length, 2048);
      assertEquals(body.data.map((item: Json) => item.index), input.map((_, i) => i));
      const upstreamModel = model === "e-openai"
        ? "text-embedding-3-small"
        : "gemini-embedding-001";
      assertEquals(body.data[2047].embedding, simulatedVector(upstreamModel, "chunk 2047", 4));
    }
    assertEquals(
      // The calls run at once: their order upstream is not fixed.
      s.gemini.requests.map((request) => request.body.requests.length).sort((a, b) => b - a),
      [...Array(20).fill(100), 48],
    );
    await walletMatchesReceipts(s);
  },
);

Deno.test(
  "embeddings: an OpenAI-compatible upstream that answers floats to a base64 request: the gateway makes the base64; one that reports no usage is billed the estimate",
  serverTest,
  async () => {
    await using s = await setupEmbeddings();
    s.openai.floatsOnly = true;
    s.openai.usage = false;
    const { data, response } = await client(s.gw.url, s.key).embeddings.create({
      model: "e-openai",
      input: "compatible",
    }).withResponse();
    assertEquals(s.openai.requests[0].encoding_format, "base64");
    assertEquals(
      data.data[0].embedding,
      simulatedVector("text-embedding-3-small", "compatible", 1536),
    );
    assertEquals(response.headers.get("x-gateway-usage-source"), "estimate");
    assertEquals(data.usage.prompt_tokens, Math.ceil("compatible".length / 4));
    await walletMatchesReceipts(s);
  },
);
