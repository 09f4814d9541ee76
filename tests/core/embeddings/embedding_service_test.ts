import { assertEquals } from "../../helpers/assert.ts";
import { billedInputTokens } from "../../../core/embeddings/embedding_service.ts";

Deno.test("billed input tokens: the upstream's believable count, else the estimate within the bound", () => {
  const tokens = { upperBound: 100, estimate: 30 };
  assertEquals(billedInputTokens(42, tokens), { inputTokens: 42, source: "upstream" });
  for (const lie of [0, -1, 1.5, "42", undefined, 100 * 4 + 10_001]) {
    assertEquals(billedInputTokens(lie, tokens), { inputTokens: 30, source: "estimate" });
  }
});
