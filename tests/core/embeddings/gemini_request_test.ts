import { assertEquals } from "../../helpers/assert.ts";
import {
  batchEmbedContentsJob,
  embedContentJob,
  unknownGeminiFields,
} from "../../../core/embeddings/gemini_request.ts";
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

Deno.test("gemini embed requests: parts joined into one input; taskType, titles and outputDimensionality kept", () => {
  assertEquals(
    embedContentJob("m", {
      content: { parts: [{ text: "a" }, { text: "b" }] },
      taskType: "CLUSTERING",
      outputDimensionality: 8,
    }),
    { model: "m", inputs: ["a\nb"], dimensions: 8, taskType: "CLUSTERING" },
  );
  const batch = batchEmbedContentsJob("m", {
    requests: [
      { model: "models/m", content: { parts: [{ text: "x" }] }, title: "X" },
      { content: { parts: [{ text: "y" }] } },
    ],
  });
  assertEquals([batch.inputs, batch.titles], [["x", "y"], ["X", undefined]]);
});

Deno.test("gemini embed requests: a batch's requests share the model, task type and dimensions", () => {
  const content = { parts: [{ text: "x" }] };
  for (
    const requests of [
      [{ model: "models/other", content }],
      [{ content, outputDimensionality: 4 }, { content }],
      Array(101).fill({ content }),
      [],
    ]
  ) {
    const error = thrown(() => batchEmbedContentsJob("m", { requests }));
    assertEquals(error.status, 400);
  }
});

Deno.test("gemini embed requests: fields no embedding request takes are named once", () => {
  assertEquals(
    unknownGeminiFields([{ content: {}, autoTruncate: true }, {
      content: {},
      autoTruncate: false,
      x: 1,
    }]),
    ["autoTruncate", "x"],
  );
});
