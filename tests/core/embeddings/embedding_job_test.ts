import { assertEquals } from "../../helpers/assert.ts";
import { embeddingTokens } from "../../../core/embeddings/embedding_job.ts";
import {
  encodedVector,
  vectorFromBase64,
  vectorToBase64,
} from "../../../core/embeddings/vector_encoding.ts";
import { billedInputTokens } from "../../../core/embeddings/embedding_service.ts";

Deno.test("embedding tokens: a UTF-8 byte each at most; estimated at 4 characters a token, rounded up per input; token lists exactly", () => {
  assertEquals(embeddingTokens(["abcde", "é", [1, 2, 3]]), {
    upperBound: 5 + 2 + 3,
    estimate: 2 + 1 + 3,
  });
});

Deno.test("vectors: base64 is little-endian float32, and back", () => {
  assertEquals(vectorToBase64([1]), "AACAPw==");
  assertEquals(vectorFromBase64("AACAPw=="), [1]);
  assertEquals(vectorFromBase64("AACA"), undefined);
  assertEquals(vectorFromBase64("not base64!"), undefined);
  assertEquals(encodedVector([0.5, -2], true), vectorToBase64([0.5, -2]));
  assertEquals(encodedVector(vectorToBase64([0.5, -2]), false), [0.5, -2]);
});

Deno.test("billed input tokens: the upstream's believable count, else the estimate within the bound", () => {
  const tokens = { upperBound: 100, estimate: 30 };
  assertEquals(billedInputTokens(42, tokens), { inputTokens: 42, source: "upstream" });
  for (const lie of [0, -1, 1.5, "42", undefined, 100 * 4 + 10_001]) {
    assertEquals(billedInputTokens(lie, tokens), { inputTokens: 30, source: "estimate" });
  }
});
