import { assertEquals } from "../../helpers/assert.ts";
import {
  embeddingAnswerMaxBytes,
  embeddingTokens,
  hasTokenInputs,
} from "../../../core/jobs/embedding_job.ts";

Deno.test("embedding tokens: a UTF-8 byte each at most; estimated at 4 characters a token, rounded up per input; token lists exactly", () => {
  assertEquals(embeddingTokens(["abcde", "é", [1, 2, 3]]), {
    upperBound: 5 + 2 + 3,
    estimate: 2 + 1 + 3,
  });
  assertEquals(hasTokenInputs({ inputs: ["a"] }), false);
  assertEquals(hasTokenInputs({ inputs: ["a", [1]] }), true);
});

Deno.test("embedding answer limit: every vector as JSON numbers, the media limit at least", () => {
  const inputs = Array(2048).fill("a");
  assertEquals(embeddingAnswerMaxBytes({ inputs }, 1000), 2048 * 3072 * 24 + 65536);
  assertEquals(embeddingAnswerMaxBytes({ inputs: ["a"], dimensions: 8 }, 1000), 8 * 24 + 65536);
  assertEquals(embeddingAnswerMaxBytes({ inputs: ["a"] }, 32 * 1024 * 1024), 32 * 1024 * 1024);
});
