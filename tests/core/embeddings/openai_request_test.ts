import { assertEquals } from "../../helpers/assert.ts";
import { embeddingInputsOf, openAIEmbeddingsJob } from "../../../core/embeddings/openai_request.ts";
import { GatewayError } from "../../../core/errors.ts";

/** The GatewayError `fn` throws. */
function thrown(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error("nothing was thrown");
}

Deno.test("openai embeddings request: every input shape OpenAI takes", () => {
  assertEquals(embeddingInputsOf("a"), ["a"]);
  assertEquals(embeddingInputsOf(["a", "b"]), ["a", "b"]);
  assertEquals(embeddingInputsOf([1, 2]), [[1, 2]]);
  assertEquals(embeddingInputsOf([[1], [2, 3]]), [[1], [2, 3]]);
  const { job, base64, ignoredFields } = openAIEmbeddingsJob({
    model: "m",
    input: "a",
    encoding_format: "base64",
    dimensions: 8,
    user: "u",
    extra: 1,
  });
  assertEquals([job.dimensions, job.user, job.rawInput, base64, ignoredFields], [
    8,
    "u",
    "a",
    true,
    ["extra"],
  ]);
});

Deno.test("openai embeddings request: OpenAI's limits, each a 400 naming the field", () => {
  const cases: Array<[unknown, string]> = [
    ["", "input"],
    [[], "input"],
    [Array(2049).fill("a"), "input"],
    [["a", ""], "input[1]"],
    [["a", 1], "input[1]"],
    [[1, 1.5], "input[1]"],
    [[[1], "a"], "input[1]"],
    [null, "input"],
  ];
  for (const [input, param] of cases) {
    const error = thrown(() => embeddingInputsOf(input));
    assertEquals([error.status, error.param], [400, param], JSON.stringify(input).slice(0, 40));
  }
  assertEquals(embeddingInputsOf(Array(2048).fill("a")).length, 2048);
});
