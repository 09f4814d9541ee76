import { assertEquals } from "../../helpers/assert.ts";
import {
  GEMINI_EMBED_BATCH,
  geminiEmbedRequests,
  readGeminiEmbeddings,
} from "../../../core/providers/gemini_embeddings.ts";
import { UpstreamAttemptError } from "../../../core/upstream/attempt.ts";
import type { Channel } from "../../../core/channels/channel_schema.ts";

Deno.test("gemini embeddings: 100 requests a call at most, each with the job's fields", () => {
  const channel = { base_url: "https://g.example" } as Channel;
  const inputs = Array.from({ length: 250 }, (_, i) => `t${i}`);
  const calls = geminiEmbedRequests({ channel, apiKey: "k", model: "gemini-embedding-001" }, {
    model: "e",
    inputs,
    dimensions: 8,
    taskType: "CLUSTERING",
  });
  assertEquals(calls.map((call) => call.inputs), [GEMINI_EMBED_BATCH, GEMINI_EMBED_BATCH, 50]);
  assertEquals(
    calls[0].url,
    "https://g.example/v1beta/models/gemini-embedding-001:batchEmbedContents",
  );
  const first = JSON.parse(calls[2].init.body as string).requests[0];
  assertEquals(first, {
    model: "models/gemini-embedding-001",
    content: { parts: [{ text: "t200" }] },
    taskType: "CLUSTERING",
    outputDimensionality: 8,
  });
});

Deno.test("gemini embeddings answer: one vector per request, else a failed attempt", () => {
  assertEquals(readGeminiEmbeddings(JSON.stringify({ embeddings: [{ values: [1, 2] }] }), 1), {
    vectors: [[1, 2]],
    inputTokens: undefined,
  });
  for (const text of ["{", "{}", JSON.stringify({ embeddings: [{ values: ["1"] }] })]) {
    let failure: unknown;
    try {
      readGeminiEmbeddings(text, 1);
    } catch (error) {
      failure = error;
    }
    assertEquals(failure instanceof UpstreamAttemptError, true, text);
  }
});
