import { assertEquals } from "../../helpers/assert.ts";
import { embeddingTokens, hasTokenInputs } from "../../../core/jobs/embedding_job.ts";

Deno.test("embedding tokens: a UTF-8 byte each at most; estimated at 4 characters a token, rounded up per input; token lists exactly", () => {
  assertEquals(embeddingTokens(["abcde", "é", [1, 2, 3]]), {
    upperBound: 5 + 2 + 3,
    estimate: 2 + 1 + 3,
  });
  assertEquals(hasTokenInputs({ inputs: ["a"] }), false);
  assertEquals(hasTokenInputs({ inputs: ["a", [1]] }), true);
});
