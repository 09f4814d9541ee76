import { assertEquals, assertOk } from "../../helpers/assert.ts";

/** The UpstreamAttemptError `fn` throws (or its promise rejects with). */
async function attemptError(fn: () => unknown): Promise<UpstreamAttemptError> {
  try {
    await fn();
  } catch (error) {
    assertOk(error instanceof UpstreamAttemptError, String(error));
    return error;
  }
  throw new Error("no error");
}
import type { Channel } from "../../../core/channels/channel_schema.ts";
import type { ImageJob } from "../../../core/jobs/image_job.ts";
import { UpstreamAttemptError } from "../../../core/upstream/attempt.ts";
import {
  bedrockIgnoredImageFields,
  bedrockImageBodies,
  bedrockImageFamily,
  bedrockImageRefusal,
  bedrockImageRequests,
  readBedrockImages,
} from "../../../core/providers/bedrock_images.ts";
import { bedrockProvider } from "../../../core/providers/bedrock.ts";

const NOVA = "amazon.nova-canvas-v1:0";
const TITAN = "amazon.titan-image-generator-v2:0";
const SD = "stability.sd3-5-large-v1:0";

function job(fields: Partial<ImageJob> = {}): ImageJob {
  return {
    action: "generations",
    model: "canvas",
    prompt: "a lighthouse",
    n: 1,
    size: "auto",
    quality: "auto",
    images: [],
    ...fields,
  };
}

Deno.test("bedrock images: the family is read from the model id, an ARN's or a profile's model", () => {
  assertEquals(bedrockImageFamily(NOVA)?.name, "nova-canvas");
  assertEquals(bedrockImageFamily(TITAN)?.name, "titan-image");
  assertEquals(bedrockImageFamily("amazon.titan-image-generator-v1")?.name, "titan-image");
  assertEquals(bedrockImageFamily("us.amazon.nova-canvas-v1:0")?.name, "nova-canvas");
  assertEquals(
    bedrockImageFamily(`arn:aws:bedrock:us-east-1::foundation-model/${NOVA}`)?.name,
    "nova-canvas",
  );
  assertEquals(bedrockImageFamily(SD)?.name, "stability");
  assertEquals(bedrockImageFamily("stability.stable-image-ultra-v1:1"), undefined);
  assertEquals(bedrockImageFamily("amazon.nova-pro-v1:0"), undefined);
  assertOk(bedrockProvider.kinds.includes("image"));
  assertOk(bedrockProvider.image?.refusal);
});

Deno.test("bedrock images: n is split into calls of at most 5; auto is 1024x1024; high is premium", () => {
  const nova = bedrockImageFamily(NOVA)!;
  const bodies = bedrockImageBodies(nova, job({ n: 7, quality: "high", size: "1280x768" }));
  assertEquals(
    bodies,
    [5, 2].map((numberOfImages) => ({
      taskType: "TEXT_IMAGE",
      textToImageParams: { text: "a lighthouse" },
      imageGenerationConfig: { numberOfImages, width: 1280, height: 768, quality: "premium" },
    })),
  );
  for (const quality of ["auto", "low", "medium"] as const) {
    const [body] = bedrockImageBodies(nova, job({ quality }));
    assertEquals(body.imageGenerationConfig, {
      numberOfImages: 1,
      width: 1024,
      height: 1024,
      quality: "standard",
    });
  }
});

Deno.test("bedrock images: Stability draws one image a call, its size as the aspect ratio of the size it makes", () => {
  const stability = bedrockImageFamily(SD)!;
  assertEquals(bedrockImageBodies(stability, job({ n: 2, size: "1344x768" })), [
    { prompt: "a lighthouse", aspect_ratio: "16:9", output_format: "png" },
    { prompt: "a lighthouse", aspect_ratio: "16:9", output_format: "png" },
  ]);
  assertEquals(bedrockImageBodies(stability, job())[0].aspect_ratio, "1:1");
  assertEquals(bedrockImageRefusal(SD, job({ size: "1536x1024" }))?.param, "size");
  assertEquals(bedrockImageRefusal(SD, job({ size: "832x1216" })), undefined);
  assertEquals(bedrockImageRefusal(SD, job({ prompt: "x".repeat(10_001) }))?.param, "prompt");
});

Deno.test("bedrock images: sizes, prompts, edits and other families are refused naming the field", () => {
  assertEquals(bedrockImageRefusal(NOVA, job({ size: "1536x1024" })), undefined);
  assertEquals(bedrockImageRefusal(NOVA, job({ size: "2048x2048" })), undefined);
  assertEquals(bedrockImageRefusal(TITAN, job({ size: "1280x768" })), undefined);
  assertEquals(bedrockImageRefusal(TITAN, job()), undefined);
  for (
    const [model, size] of [
      [NOVA, "3840x2160"], // over 4,194,304 pixels
      [NOVA, "4096x1008"], // wider than 4:1
      [NOVA, "1000x1000"], // not multiples of 16
      [NOVA, "4112x1024"], // an edge over 4,096
      [TITAN, "1536x1024"], // not in Titan's list
    ]
  ) {
    const refusal = bedrockImageRefusal(model, job({ size }));
    assertEquals(refusal?.param, "size", `${model} ${size}`);
    assertOk(refusal?.message.includes(size), refusal?.message);
  }
  assertEquals(bedrockImageRefusal(TITAN, job({ prompt: "x".repeat(513) }))?.param, "prompt");
  assertEquals(bedrockImageRefusal(NOVA, job({ prompt: "x".repeat(1024) })), undefined);
  assertEquals(bedrockImageRefusal(NOVA, job({ action: "edits" }))?.param, "model");
  const unknown = bedrockImageRefusal("stability.stable-image-ultra-v1:1", job());
  assertEquals(unknown?.param, "model");
  assertOk(unknown?.message.includes("amazon.nova-canvas-v1:0"), unknown?.message);
});

Deno.test("bedrock images: the calls go to InvokeModel of the encoded id, signed; an unknown model is no call", async () => {
  const channel = {
    base_url: "https://bedrock-runtime.us-east-1.amazonaws.com",
    region: "us-east-1",
  } as Channel;
  const calls = await bedrockImageRequests(
    { channel, apiKey: "AKIAIOSFODNN7EXAMPLE:secret", model: NOVA },
    job({ n: 6 }),
  );
  assertEquals(calls.length, 2);
  assertEquals(
    calls[0].url,
    "https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.nova-canvas-v1%3A0/invoke",
  );
  const headers = calls[0].init.headers as Record<string, string>;
  assertOk(headers.authorization.startsWith("AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/"));
  assertEquals(JSON.parse(calls[1].init.body as string).imageGenerationConfig.numberOfImages, 1);
  const [keyed] = await bedrockImageRequests(
    { channel: { ...channel, bedrock_auth: "api-key" }, apiKey: "bedrock-key", model: TITAN },
    job(),
  );
  assertEquals((keyed.init.headers as Record<string, string>).authorization, "Bearer bedrock-key");
  const refused = await attemptError(() =>
    bedrockImageRequests(
      { channel, apiKey: "k:s", model: "stability.stable-image-ultra-v1:1" },
      job(),
    )
  );
  assertEquals(refused.retryable, false);
});

Deno.test("bedrock images: the answer's images are PNGs; an error is a final refusal, none a failed attempt", async () => {
  assertEquals(readBedrockImages('{"images":["AAAA","BBBB"]}'), [
    { b64: "AAAA", mimeType: "image/png" },
    { b64: "BBBB", mimeType: "image/png" },
  ]);
  const blocked = await attemptError(() =>
    readBedrockImages('{"images":[],"error":"blocked by the content filters"}')
  );
  assertEquals([blocked.retryable, blocked.status], [false, 400]);
  assertEquals(
    readBedrockImages('{"seeds":[1],"finish_reasons":[null],"images":["CCCC"]}'),
    [{ b64: "CCCC", mimeType: "image/png" }],
  );
  const filtered = await attemptError(() =>
    readBedrockImages('{"seeds":[1],"finish_reasons":["Filter reason: prompt"]}')
  );
  assertEquals([filtered.retryable, filtered.status], [false, 400]);
  for (
    const text of [
      '{"images":[]}',
      '{"finish_reasons":["Inference error"]}',
      "{}",
      "null",
      "not json",
    ]
  ) {
    const failed = await attemptError(() => readBedrockImages(text));
    assertEquals(failed.retryable, true, text);
  }
});

Deno.test("bedrock images: user is named as ignored, and quality on Stability", () => {
  assertEquals(bedrockIgnoredImageFields(NOVA, job({ quality: "high" })), []);
  assertEquals(bedrockIgnoredImageFields(NOVA, job({ user: "u1" })), ["user"]);
  assertEquals(bedrockIgnoredImageFields(SD, job()), []);
  assertEquals(bedrockIgnoredImageFields(SD, job({ quality: "low", user: "u" })), [
    "quality",
    "user",
  ]);
});
