import { assertEquals, assertOk } from "../../helpers/assert.ts";
import type { ImageJob } from "../../../core/jobs/image_job.ts";
import {
  imagenAspectRatio,
  imagenBodies,
  imagenRefusal,
  isImagenModel,
  readVertexImages,
} from "../../../core/providers/vertex_images.ts";
import { UpstreamAttemptError } from "../../../core/upstream/attempt.ts";

function jobOf(extra: Partial<ImageJob> = {}): ImageJob {
  return {
    action: "generations",
    model: "pic",
    prompt: "a lighthouse",
    n: 1,
    size: "auto",
    quality: "auto",
    images: [],
    ...extra,
  };
}

function failureOf(fn: () => unknown): UpstreamAttemptError {
  try {
    fn();
  } catch (error) {
    if (error instanceof UpstreamAttemptError) return error;
    throw error;
  }
  throw new Error("expected a failed attempt");
}

Deno.test("isImagenModel: imagen-* by name, any other Google model is Gemini's", () => {
  assertEquals(
    ["imagen-4.0-generate-001", "Imagen-3.0-generate-002", "gemini-2.5-flash-image"].map(
      isImagenModel,
    ),
    [true, true, false],
  );
});

Deno.test("imagenAspectRatio: OpenAI's sizes to Imagen's five ratios, none for a 3:1 size", () => {
  const sizes = [
    "auto",
    "1024x1024",
    "1024x1536",
    "1536x1024",
    "2048x1152",
    "2160x3840",
    "2048x2048",
    "1920x640",
    "640x1920",
  ];
  assertEquals(sizes.map(imagenAspectRatio), [
    undefined,
    "1:1",
    "3:4",
    "4:3",
    "16:9",
    "9:16",
    "1:1",
    null,
    null,
  ]);
});

Deno.test("imagenBodies: at most 4 samples a call, the ratio and PNG asked", () => {
  const bodies = imagenBodies("imagen-3.0-generate-002", jobOf({ n: 6, size: "1536x1024" }));
  assertEquals(
    bodies,
    [4, 2].map((sampleCount) => ({
      instances: [{ prompt: "a lighthouse" }],
      parameters: { sampleCount, aspectRatio: "4:3", outputOptions: { mimeType: "image/png" } },
    })),
  );
  // `auto` leaves the ratio to the model (1:1); Imagen 4 Standard draws 2K when asked.
  assertEquals(imagenBodies("imagen-4.0-generate-001", jobOf())[0].parameters, {
    sampleCount: 1,
    outputOptions: { mimeType: "image/png" },
  });
  assertEquals(
    imagenBodies("imagen-4.0-generate-001", jobOf({ size: "2048x2048" }))[0].parameters,
    {
      sampleCount: 1,
      aspectRatio: "1:1",
      sampleImageSize: "2K",
      outputOptions: { mimeType: "image/png" },
    },
  );
});

Deno.test("imagenRefusal: edits, sizes without a ratio and sizes above the model's, by field", () => {
  const model = "imagen-4.0-fast-generate-001";
  assertEquals(imagenRefusal(model, jobOf({ size: "1024x1536" })), undefined);
  assertEquals(imagenRefusal(model, jobOf({ action: "edits" }))?.param, "model");
  const ratio = imagenRefusal(model, jobOf({ size: "1920x640" }));
  assertEquals(ratio?.param, "size");
  assertOk(ratio?.message.includes("1:1, 3:4, 4:3, 9:16, 16:9"), ratio?.message);
  assertEquals(imagenRefusal(model, jobOf({ size: "2048x2048" }))?.param, "size");
  assertEquals(imagenRefusal("imagen-4.0-generate-001", jobOf({ size: "2048x2048" })), undefined);
  assertEquals(
    imagenRefusal("imagen-4.0-generate-001", jobOf({ size: "3840x2160" }))?.param,
    "size",
  );
});

Deno.test("readVertexImages: Imagen predictions, a Gemini answer, and answers without an image", () => {
  assertEquals(
    readVertexImages(JSON.stringify({
      predictions: [
        { bytesBase64Encoded: "AAA=", mimeType: "image/png" },
        { raiFilteredReason: "filtered" },
        { bytesBase64Encoded: "BBB=" },
      ],
    })),
    [{ b64: "AAA=", mimeType: "image/png" }, { b64: "BBB=", mimeType: "image/png" }],
  );
  assertEquals(
    readVertexImages(JSON.stringify({
      candidates: [{
        content: {
          parts: [{ text: "here" }, { inlineData: { mimeType: "image/png", data: "CC==" } }],
        },
      }],
    })),
    [{ b64: "CC==", mimeType: "image/png" }],
  );
  const filtered = failureOf(() =>
    readVertexImages(JSON.stringify({ predictions: [{ raiFilteredReason: "unsafe prompt" }] }))
  );
  assertEquals([filtered.retryable, filtered.status], [false, 400]);
  assertEquals(filtered.upstreamCode, "content_policy_violation");
  // Imagen answers `{}` when every image was filtered without a reason asked for.
  assertEquals(failureOf(() => readVertexImages("{}")).retryable, true);
  assertEquals(failureOf(() => readVertexImages("not json")).retryable, true);
  const blocked = failureOf(() =>
    readVertexImages(JSON.stringify({ promptFeedback: { blockReason: "SAFETY" } }))
  );
  assertEquals(blocked.status, 400);
});
