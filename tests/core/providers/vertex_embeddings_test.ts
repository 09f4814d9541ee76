import { assertEquals, assertOk } from "../../helpers/assert.ts";
import {
  readVertexEmbeddings,
  VERTEX_EMBED_BATCH,
  VERTEX_EMBED_INPUT_TOKENS,
  vertexEmbedCalls,
  vertexEmbedIgnoredFields,
} from "../../../core/providers/vertex_embeddings.ts";
import { UpstreamAttemptError } from "../../../core/upstream/attempt.ts";

Deno.test("vertex embeddings: each input one instance, the job's fields in Vertex's names", () => {
  const calls = vertexEmbedCalls("text-embedding-005", {
    model: "e",
    inputs: ["a doc", "another"],
    dimensions: 64,
    taskType: "RETRIEVAL_DOCUMENT",
    titles: ["Title A", undefined],
  });
  assertEquals(calls, [{
    inputs: 2,
    body: {
      instances: [
        { content: "a doc", task_type: "RETRIEVAL_DOCUMENT", title: "Title A" },
        { content: "another", task_type: "RETRIEVAL_DOCUMENT" },
      ],
      parameters: { outputDimensionality: 64 },
    },
  }]);
  // No task type, no dimensions: nothing but the contents (the model's defaults apply).
  assertEquals(vertexEmbedCalls("text-embedding-005", { model: "e", inputs: ["x"] }), [
    { inputs: 1, body: { instances: [{ content: "x" }] } },
  ]);
  assertEquals(
    vertexEmbedCalls("text-embedding-005", {
      model: "e",
      inputs: ["x"],
      taskType: "TASK_TYPE_UNSPECIFIED",
    })[0].body.instances,
    [{ content: "x" }],
  );
});

Deno.test("vertex embeddings: a title goes only with RETRIEVAL_DOCUMENT, else it is named ignored", () => {
  const job = {
    model: "e",
    inputs: ["q"],
    taskType: "RETRIEVAL_QUERY",
    titles: ["T"],
    user: "u-1",
  };
  assertEquals(vertexEmbedCalls("text-embedding-005", job)[0].body.instances, [
    { content: "q", task_type: "RETRIEVAL_QUERY" },
  ]);
  assertEquals(vertexEmbedIgnoredFields(job), ["user", "title"]);
  assertEquals(
    vertexEmbedIgnoredFields({ ...job, taskType: "RETRIEVAL_DOCUMENT", user: undefined }),
    [],
  );
  assertEquals(vertexEmbedIgnoredFields({ model: "e", inputs: ["q"] }), []);
});

Deno.test("vertex embeddings: gemini-embedding takes one instance a call, the others 250 and 20,000 tokens", () => {
  const inputs = Array.from({ length: 600 }, (_, i) => `t${i}`);
  assertEquals(
    vertexEmbedCalls("text-embedding-005", { model: "e", inputs }).map((call) => call.inputs),
    [VERTEX_EMBED_BATCH, VERTEX_EMBED_BATCH, 100],
  );
  const gemini = vertexEmbedCalls("gemini-embedding-001", { model: "e", inputs: ["a", "b", "c"] });
  assertEquals(gemini.map((call) => call.body.instances), [
    [{ content: "a" }],
    [{ content: "b" }],
    [{ content: "c" }],
  ]);
  // Long inputs: each bounded by 2,048 tokens (it is truncated past that), so 9 fit a call.
  const long = "word ".repeat(5000);
  const split = vertexEmbedCalls("text-multilingual-embedding-002", {
    model: "e",
    inputs: Array(20).fill(long),
  });
  assertEquals(split.map((call) => call.inputs), [9, 9, 2]);
  assertEquals(Math.floor(20_000 / VERTEX_EMBED_INPUT_TOKENS), 9);
  // Inputs stay in order across calls.
  assertEquals(
    vertexEmbedCalls("text-embedding-005", { model: "e", inputs })
      .flatMap((call) => call.body.instances.map((instance) => instance.content)),
    inputs,
  );
});

Deno.test("vertex embeddings: the answer's vectors and the sum of their token counts", () => {
  const answer = JSON.stringify({
    predictions: [
      { embeddings: { values: [0.1, 0.2], statistics: { token_count: 3, truncated: false } } },
      { embeddings: { values: [0.3, 0.4], statistics: { token_count: 5, truncated: true } } },
    ],
    metadata: { billableCharacterCount: 20 },
  });
  assertEquals(readVertexEmbeddings(answer, 2), {
    vectors: [[0.1, 0.2], [0.3, 0.4]],
    inputTokens: 8,
  });
  // A prediction without statistics: no upstream count (the gateway's estimate is billed).
  const uncounted = JSON.stringify({
    predictions: [{ embeddings: { values: [1] } }, {
      embeddings: { values: [2], statistics: { token_count: 4 } },
    }],
  });
  assertEquals(readVertexEmbeddings(uncounted, 2).inputTokens, undefined);
  for (
    const bad of [
      "not json",
      "null",
      JSON.stringify({ predictions: [{ embeddings: { values: [1] } }] }),
      JSON.stringify({ predictions: [{ embeddings: { values: ["x"] } }, null] }),
      JSON.stringify({ predictions: [{ embeddings: null }, { embeddings: { values: [1] } }] }),
    ]
  ) {
    let thrown: unknown;
    try {
      readVertexEmbeddings(bad, 2);
    } catch (error) {
      thrown = error;
    }
    assertOk(thrown instanceof UpstreamAttemptError, bad);
  }
});
