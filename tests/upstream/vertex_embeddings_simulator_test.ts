/** The Vertex simulator's `:predict` for embedding models is as strict as Google documents it. */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { simulatedVector } from "./embedding_vectors.ts";
import { startVertexUpstream } from "./vertex.ts";
import { vertexEmbedTokens, vertexPredict } from "./vertex_embeddings.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

async function predict(model: string, body: unknown): Promise<{ status: number; body: Json }> {
  const response = vertexPredict(model, JSON.stringify(body));
  return { status: response.status, body: await response.json() };
}

Deno.test("vertex simulator predict: vectors of the asked length, token counts, truncation", async () => {
  const long = "x".repeat(4 * 3000);
  const answer = await predict("text-embedding-005", {
    instances: [
      { content: "hello there", task_type: "RETRIEVAL_DOCUMENT", title: "Greeting" },
      { content: long },
    ],
    parameters: { outputDimensionality: 8, autoTruncate: true },
  });
  assertEquals(answer.status, 200);
  const [first, second] = answer.body.predictions;
  assertEquals(first.embeddings.values, simulatedVector("text-embedding-005", "hello there", 8));
  assertEquals(first.embeddings.statistics, {
    truncated: false,
    token_count: vertexEmbedTokens("hello there"),
  });
  assertEquals(second.embeddings.statistics, { truncated: true, token_count: 2048 });
  assertEquals(answer.body.metadata.billableCharacterCount, 10 + long.length);
  const full = await predict("gemini-embedding-001", { instances: [{ content: "a" }] });
  assertEquals(full.body.predictions[0].embeddings.values.length, 3072);
});

Deno.test("vertex simulator predict: refuses what Vertex refuses", async () => {
  const one = { content: "a" };
  const cases: Array<[string, string, unknown]> = [
    ["no instances", "text-embedding-005", {}],
    ["empty instances", "text-embedding-005", { instances: [] }],
    ["unknown top field", "text-embedding-005", { instances: [one], model: "x" }],
    ["unknown instance field", "text-embedding-005", { instances: [{ content: "a", text: "b" }] }],
    ["camelCase task type", "text-embedding-005", {
      instances: [{ content: "a", taskType: "RETRIEVAL_QUERY" }],
    }],
    ["unknown task type", "text-embedding-005", {
      instances: [{ content: "a", task_type: "SUMMARY" }],
    }],
    ["title without RETRIEVAL_DOCUMENT", "text-embedding-005", {
      instances: [{ content: "a", title: "T" }],
    }],
    ["empty content", "text-embedding-005", { instances: [{ content: " " }] }],
    ["unknown parameter", "text-embedding-005", { instances: [one], parameters: { dims: 3 } }],
    ["too many dimensions", "text-embedding-005", {
      instances: [one],
      parameters: { outputDimensionality: 769 },
    }],
    ["two instances on gemini-embedding-001", "gemini-embedding-001", { instances: [one, one] }],
    ["251 instances", "text-embedding-005", { instances: Array(251).fill(one) }],
    ["over 20,000 tokens", "text-embedding-005", {
      instances: Array(10).fill({ content: "y".repeat(4 * 2048) }),
    }],
    ["a long input with autoTruncate false", "text-embedding-005", {
      instances: [{ content: "y".repeat(4 * 2049) }],
      parameters: { autoTruncate: false },
    }],
  ];
  for (const [name, model, body] of cases) {
    const answer = await predict(model, body);
    assertEquals(answer.status, 400, name);
    assertEquals(answer.body.error.status, "INVALID_ARGUMENT", name);
  }
  assertEquals(
    (await predict("text-embedding-005", { instances: Array(250).fill(one) })).status,
    200,
  );
});

Deno.test("vertex simulator predict: a bearer token is needed, as for the other methods", async () => {
  await using sim = await startVertexUpstream();
  const url = `${sim.baseUrl}/v1/projects/${sim.project}/locations/${sim.location}` +
    "/publishers/google/models/text-embedding-005:predict";
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer ya29.forged" },
    body: JSON.stringify({ instances: [{ content: "a" }] }),
  });
  assertEquals(response.status, 401);
  assertOk((await response.json()).error.status === "UNAUTHENTICATED");
  assertEquals(sim.requests.map((request) => request.method), ["predict"]);
});
