import { assertEquals } from "../../helpers/assert.ts";
import { readOpenAIEmbeddings } from "../../../core/providers/openai_embeddings.ts";
import { UpstreamAttemptError } from "../../../core/upstream/attempt.ts";

const answer = (data: unknown, usage: unknown = { prompt_tokens: 3 }) =>
  JSON.stringify({ object: "list", data, model: "m", usage });

Deno.test("openai embeddings answer: vectors by index, numbers or base64, and the reported usage", () => {
  const read = readOpenAIEmbeddings(
    answer([{ index: 1, embedding: "AACAPw==" }, { index: 0, embedding: [0.5, 1] }]),
    2,
  );
  assertEquals(read, { vectors: [[0.5, 1], "AACAPw=="], inputTokens: 3 });
  assertEquals(readOpenAIEmbeddings(answer([{ embedding: [1] }], "x"), 1).inputTokens, undefined);
});

Deno.test("openai embeddings answer: a missing, extra or malformed vector fails the attempt (retryable)", () => {
  for (
    const text of [
      "{not json",
      "null",
      answer([]),
      answer([{ index: 0, embedding: [1] }]),
      answer([{ index: 0, embedding: [1, "2"] }, { index: 1, embedding: [1] }]),
      answer([{ index: 0, embedding: [1] }, { index: 0, embedding: [1] }]),
      answer([{ embedding: [1] }, { embedding: [1] }, { embedding: [1] }]),
    ]
  ) {
    let failure: unknown;
    try {
      readOpenAIEmbeddings(text, 2);
    } catch (error) {
      failure = error;
    }
    assertEquals(failure instanceof UpstreamAttemptError && failure.retryable, true, text);
  }
});
