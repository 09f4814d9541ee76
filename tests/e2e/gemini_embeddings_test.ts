/**
 * Gemini's embedding routes end to end with the official @google/genai SDK and raw requests:
 * `models.embedContent` (one content, several contents; the SDK calls batchEmbedContents),
 * `:embedContent` raw, `taskType`/`title`/`outputDimensionality` on a `gemini` channel and
 * converted to an `openai` channel, Google's envelope for bad input, keys as x-goog-api-key and
 * ?key=, and the wallet against the receipts.
 */

import { GoogleGenAI } from "@google/genai";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import { recordOf, setupEmbeddings, walletMatchesReceipts } from "../helpers/embedding_setup.ts";
import { simulatedVector } from "../upstream/embedding_vectors.ts";
import { simulatedTokens } from "../upstream/openai_embeddings.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

async function postGemini(
  url: string,
  path: string,
  body: unknown,
  auth: { header?: string; query?: string },
): Promise<Response> {
  const query = auth.query ? `?key=${auth.query}` : "";
  return await fetch(`${url}${path}${query}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(auth.header ? { "x-goog-api-key": auth.header } : {}),
    },
    body: JSON.stringify(body),
  });
}

Deno.test(
  "gemini embeddings: @google/genai embedContent with one and with several contents, on a gemini channel and on an openai channel",
  serverTest,
  async () => {
    await using s = await setupEmbeddings();
    const ai = new GoogleGenAI({ apiKey: s.key, httpOptions: { baseUrl: s.gw.url } });
    const one = await ai.models.embedContent({
      model: "e-gemini",
      contents: "What is the meaning of life?",
      config: { taskType: "RETRIEVAL_QUERY", outputDimensionality: 16 },
    });
    assertEquals(one.embeddings?.length, 1);
    assertEquals(
      one.embeddings![0].values,
      simulatedVector("gemini-embedding-001", "What is the meaning of life?", 16),
    );
    const sent = s.gemini.requests[0];
    assertEquals(sent.method, "batchEmbedContents");
    assertEquals(sent.body.requests[0].taskType, "RETRIEVAL_QUERY");
    assertEquals(sent.body.requests[0].outputDimensionality, 16);

    const texts = ["first document", "second document", "third"];
    const several = await ai.models.embedContent({ model: "e-gemini", contents: texts });
    assertEquals(
      several.embeddings!.map((embedding) => embedding.values),
      texts.map((text) => simulatedVector("gemini-embedding-001", text, 3072)),
    );

    // The same SDK call on a model of an openai channel: converted, outputDimensionality as
    // dimensions, taskType named as ignored.
    const converted = await ai.models.embedContent({
      model: "e-openai",
      contents: texts,
      config: { taskType: "RETRIEVAL_DOCUMENT", outputDimensionality: 32 },
    });
    assertEquals(
      converted.embeddings!.map((embedding) => embedding.values),
      texts.map((text) => simulatedVector("text-embedding-3-small", text, 32)),
    );
    const toOpenAI = s.openai.requests[0];
    assertEquals([toOpenAI.input, toOpenAI.dimensions], [texts, 32]);
    assertEquals(toOpenAI.taskType, undefined);
    const headers = converted.sdkHttpResponse!.headers!;
    assertEquals(headers["x-gateway-ignored-fields"], "taskType");
    const record = await recordOf(s.gw, headers["x-request-id"]);
    assertEquals(record.interface, "gemini-embeddings");
    assertEquals(record.usage_source, "upstream");
    const tokens = texts.reduce((sum, text) => sum + simulatedTokens(text), 0);
    assertEquals(record.receipt.units.input_tokens, tokens);
    await walletMatchesReceipts(s);
  },
);

Deno.test(
  "gemini embeddings: :embedContent answers {embedding: {values}}, with the key as x-goog-api-key or ?key=, snake_case fields too",
  serverTest,
  async () => {
    await using s = await setupEmbeddings();
    for (const auth of [{ header: s.key }, { query: s.key }]) {
      const response = await postGemini(s.gw.url, "/v1beta/models/e-gemini:embedContent", {
        content: { parts: [{ text: "hello" }, { text: "world" }] },
        task_type: "RETRIEVAL_DOCUMENT",
        title: "Greeting",
        output_dimensionality: 4,
      }, auth);
      assertEquals(response.status, 200);
      const body: Json = await response.json();
      assertEquals(Object.keys(body), ["embedding"]);
      assertEquals(
        body.embedding.values,
        simulatedVector("gemini-embedding-001", "hello\nworld", 4),
      );
    }
    // The same under /v1/models/, as newer SDK versions call it.
    const v1 = await postGemini(s.gw.url, "/v1/models/e-gemini:embedContent", {
      content: { parts: [{ text: "hello" }] },
    }, { header: s.key });
    assertEquals(v1.status, 200);
    assertEquals((await v1.json()).embedding.values.length, 3072);
    const v1Record = await recordOf(s.gw, v1.headers.get("x-request-id")!);
    assertEquals(v1Record.interface, "gemini-embeddings");
    const sent = s.gemini.requests[0].body.requests[0];
    assertEquals(sent.title, "Greeting");
    assertEquals(sent.taskType, "RETRIEVAL_DOCUMENT");
    const batch = await postGemini(s.gw.url, "/v1beta/models/e-openai:batchEmbedContents", {
      requests: [
        { model: "models/e-openai", content: { parts: [{ text: "x" }] }, title: "T" },
        { model: "models/e-openai", content: { parts: [{ text: "y" }] }, autoTruncate: true },
      ],
    }, { header: s.key });
    assertEquals(batch.status, 200);
    assertEquals(batch.headers.get("x-gateway-ignored-fields"), "autoTruncate,title");
    assertEquals(s.openai.requests[0].autoTruncate, undefined);
    assertEquals((await batch.json()).embeddings.length, 2);
    await walletMatchesReceipts(s);
  },
);

Deno.test(
  "gemini embeddings: bad requests are 4xx in Google's envelope with nothing charged",
  serverTest,
  async () => {
    await using s = await setupEmbeddings();
    const text = { parts: [{ text: "a" }] };
    const cases: Array<[string, string, unknown, number]> = [
      ["no content", "e-gemini:embedContent", {}, 400],
      ["empty parts", "e-gemini:embedContent", { content: { parts: [] } }, 400],
      ["an image part", "e-gemini:embedContent", {
        content: { parts: [{ inlineData: { mimeType: "image/png", data: "AA==" } }] },
      }, 400],
      ["blank text", "e-gemini:embedContent", { content: { parts: [{ text: "  " }] } }, 400],
      ["zero dimensions", "e-gemini:embedContent", { content: text, outputDimensionality: 0 }, 400],
      ["empty batch", "e-gemini:batchEmbedContents", { requests: [] }, 400],
      ["101 requests", "e-gemini:batchEmbedContents", {
        requests: Array(101).fill({ model: "models/e-gemini", content: text }),
      }, 400],
      ["another model", "e-gemini:batchEmbedContents", {
        requests: [{ model: "models/e-openai", content: text }],
      }, 400],
      ["mixed task types", "e-gemini:batchEmbedContents", {
        requests: [
          { content: text, taskType: "RETRIEVAL_QUERY" },
          { content: text, taskType: "CLUSTERING" },
        ],
      }, 400],
      ["unknown model", "nope:embedContent", { content: text }, 404],
    ];
    for (const [name, target, body, status] of cases) {
      const response = await postGemini(s.gw.url, `/v1beta/models/${target}`, body, {
        header: s.key,
      });
      assertEquals(response.status, status, name);
      const answer: Json = await response.json();
      assertEquals(answer.error.code, status, name);
      assertOk(typeof answer.error.status === "string" && answer.error.message, name);
    }
    const noKey = await postGemini(s.gw.url, "/v1beta/models/e-gemini:embedContent", {
      content: text,
    }, {});
    assertEquals(noKey.status, 401);
    assertOk((await noKey.json()).error.status);
    // A text method on an embedding model is refused too.
    const generate = await postGemini(s.gw.url, "/v1beta/models/e-gemini:generateContent", {
      contents: [{ parts: [{ text: "a" }] }],
    }, { header: s.key });
    assertEquals(generate.status, 400);
    await generate.body?.cancel();
    assertEquals(s.gemini.requests.length, 0);
    const records = await walletMatchesReceipts(s);
    assertOk(records.every((record: Json) => !record.receipt));
  },
);
