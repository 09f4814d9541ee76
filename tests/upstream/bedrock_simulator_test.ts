/**
 * The Bedrock simulator checked against AWS's own client (`@aws-sdk/client-bedrock-runtime`),
 * whose signer and event-stream reader are not the gateway's: the SDK's SigV4 signatures are
 * accepted (and a wrong secret refused in the words the SDK reads), its Converse, ConverseStream
 * and InvokeModelWithResponseStream calls get answers it parses, and so do its InvokeModel calls
 * of the embedding and image models (whose bad bodies are refused as ValidationException). The
 * control plane's lists (no SDK of it here) are asked with the gateway's signer, itself checked
 * with AWS's test vectors.
 */

import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  CountTokensCommand,
  InvokeModelCommand,
  InvokeModelWithResponseStreamCommand,
} from "@aws-sdk/client-bedrock-runtime";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { sigV4Headers } from "../../core/providers/bedrock_auth.ts";
import {
  BEDROCK_TEST_ACCESS_KEY,
  BEDROCK_TEST_MODEL,
  BEDROCK_TEST_NOVA,
  BEDROCK_TEST_SECRET,
  startBedrockUpstream,
} from "./bedrock.ts";
import { BEDROCK_TEST_COHERE, BEDROCK_TEST_TITAN, cohereVector } from "./bedrock_embeddings.ts";
import { simulatedVector } from "./embedding_vectors.ts";
import {
  BEDROCK_TEST_NOVA_CANVAS,
  BEDROCK_TEST_STABILITY,
  BEDROCK_TEST_TITAN_IMAGE,
  bedrockImageColor,
} from "./bedrock_images.ts";
import { solidRgbPng } from "../helpers/png_fixtures.ts";
import { readPng } from "../../core/media/png.ts";

function client(endpoint: string, secretAccessKey = BEDROCK_TEST_SECRET) {
  return new BedrockRuntimeClient({
    region: "us-east-1",
    endpoint,
    maxAttempts: 1,
    credentials: { accessKeyId: BEDROCK_TEST_ACCESS_KEY, secretAccessKey },
  });
}

Deno.test("bedrock simulator: AWS's SDK signs, converses and streams against it", async () => {
  await using sim = startBedrockUpstream();
  const sdk = client(sim.endpoint);
  try {
    const answer = await sdk.send(
      new ConverseCommand({
        modelId: BEDROCK_TEST_NOVA,
        messages: [{ role: "user", content: [{ text: "hello" }] }],
        inferenceConfig: { maxTokens: 100 },
      }),
    );
    assertEquals(answer.output?.message?.content?.[0].text, "Echo: hello");
    assertEquals(answer.stopReason, "end_turn");
    assertOk((answer.usage?.outputTokens ?? 0) > 0);
    assertEquals(sim.requests.at(-1)!.refused, undefined);

    const stream = await sdk.send(
      new ConverseStreamCommand({
        modelId: BEDROCK_TEST_MODEL,
        messages: [{ role: "user", content: [{ text: "stream" }] }],
      }),
    );
    let text = "";
    const kinds: string[] = [];
    for await (const event of stream.stream!) {
      kinds.push(Object.keys(event)[0]);
      text += event.contentBlockDelta?.delta?.text ?? "";
    }
    assertEquals(text, "Echo: stream");
    assertEquals(kinds[0], "messageStart");
    assertEquals(kinds.slice(-3), ["contentBlockStop", "messageStop", "metadata"]);

    const invoked = await sdk.send(
      new InvokeModelCommand({
        modelId: BEDROCK_TEST_MODEL,
        body: JSON.stringify({
          anthropic_version: "bedrock-2023-05-31",
          max_tokens: 100,
          messages: [{ role: "user", content: "invoke" }],
        }),
      }),
    );
    assertEquals(
      JSON.parse(new TextDecoder().decode(invoked.body)).content[0].text,
      "Echo: invoke",
    );

    const streamed = await sdk.send(
      new InvokeModelWithResponseStreamCommand({
        modelId: BEDROCK_TEST_MODEL,
        body: JSON.stringify({
          anthropic_version: "bedrock-2023-05-31",
          max_tokens: 100,
          messages: [{ role: "user", content: "invoke stream" }],
        }),
      }),
    );
    const types: string[] = [];
    for await (const event of streamed.body!) {
      types.push(JSON.parse(new TextDecoder().decode(event.chunk!.bytes)).type);
    }
    assertEquals(types[0], "message_start");
    assertEquals(types.at(-1), "message_stop");
    assertOk(sim.requests.every((request) => request.refused === undefined));
  } finally {
    sdk.destroy();
  }
});

Deno.test("bedrock simulator: a wrong secret is refused as AWS refuses it, in the SDK's terms", async () => {
  await using sim = startBedrockUpstream();
  const sdk = client(sim.endpoint, "not-the-secret");
  try {
    const error = await sdk.send(
      new ConverseCommand({
        modelId: BEDROCK_TEST_NOVA,
        messages: [{ role: "user", content: [{ text: "hello" }] }],
      }),
    ).then(() => undefined, (error) => error);
    assertEquals(error?.name, "InvalidSignatureException");
    assertEquals(error?.$metadata?.httpStatusCode, 403);
    assertOk(String(error?.message).startsWith("The request signature we calculated"));
  } finally {
    sdk.destroy();
  }
});

Deno.test("bedrock simulator: AWS's SDK counts tokens (Converse and InvokeModel inputs) as a call reports them; models that cannot count are refused", async () => {
  await using sim = startBedrockUpstream();
  const sdk = client(sim.endpoint);
  try {
    const messages = [{ role: "user" as const, content: [{ text: "count these words please" }] }];
    const system = [{ text: "be brief" }];
    const counted = await sdk.send(
      new CountTokensCommand({
        modelId: BEDROCK_TEST_MODEL,
        input: { converse: { messages, system } },
      }),
    );
    const answered = await sdk.send(
      new ConverseCommand({ modelId: BEDROCK_TEST_MODEL, messages, system }),
    );
    assertOk((counted.inputTokens ?? 0) > 0);
    assertEquals(counted.inputTokens, answered.usage?.inputTokens);

    const invokeBody = {
      anthropic_version: "bedrock-2023-05-31",
      max_tokens: 20,
      system: "be brief",
      messages: [{ role: "user", content: "count these words please" }],
    };
    const invoked = await sdk.send(
      new CountTokensCommand({
        modelId: BEDROCK_TEST_MODEL,
        input: { invokeModel: { body: new TextEncoder().encode(JSON.stringify(invokeBody)) } },
      }),
    );
    assertEquals(invoked.inputTokens, counted.inputTokens);

    let refusal: Error | undefined;
    try {
      await sdk.send(
        new CountTokensCommand({ modelId: BEDROCK_TEST_NOVA, input: { converse: { messages } } }),
      );
    } catch (error) {
      refusal = error as Error;
    }
    assertEquals(refusal?.name, "ValidationException");
    assertOk(refusal?.message.includes("doesn't support counting tokens"));

    const extra = await sdk.send(
      new CountTokensCommand({
        modelId: BEDROCK_TEST_MODEL,
        input: {
          invokeModel: {
            body: new TextEncoder().encode(
              JSON.stringify({ ...invokeBody, anthropic_version: undefined }),
            ),
          },
        },
      }),
    ).catch((error: Error) => error);
    assertEquals((extra as Error).name, "ValidationException");
  } finally {
    sdk.destroy();
  }
});

Deno.test("bedrock simulator: the control plane's lists are signed, checked and paged as AWS's", async () => {
  await using sim = startBedrockUpstream({ profilesPageSize: 1 });
  const credentials = {
    accessKeyId: BEDROCK_TEST_ACCESS_KEY,
    secretAccessKey: BEDROCK_TEST_SECRET,
  };
  const get = async (path: string, sign = true) => {
    const url = `${sim.endpoint}${path}`;
    const headers = sign
      ? await sigV4Headers({ method: "GET", url, headers: {}, body: "" }, {
        credentials,
        region: sim.region,
        service: "bedrock",
      })
      : {};
    const response = await fetch(url, { headers });
    return {
      status: response.status,
      type: response.headers.get("x-amzn-errortype")?.split(":")[0],
      body: await response.json(),
    };
  };
  const unsigned = await get("/foundation-models", false);
  assertEquals([unsigned.status, unsigned.type], [403, "MissingAuthenticationTokenException"]);

  const all = await get("/foundation-models");
  assertEquals(all.status, 200);
  assertOk(
    all.body.modelSummaries.some((m: { modelId: string }) => m.modelId === BEDROCK_TEST_MODEL),
  );
  const text = await get("/foundation-models?byOutputModality=TEXT&byInferenceType=ON_DEMAND");
  assertEquals(text.body.modelSummaries.map((m: { modelId: string }) => m.modelId), [
    BEDROCK_TEST_MODEL,
    BEDROCK_TEST_NOVA,
  ]);
  const badFilter = await get("/foundation-models?byOutputModality=AUDIO");
  assertEquals([badFilter.status, badFilter.type], [400, "ValidationException"]);

  const first = await get("/inference-profiles?maxResults=1000&type=SYSTEM_DEFINED");
  assertEquals(first.body.inferenceProfileSummaries.length, 1);
  assertOk(first.body.nextToken, "a next page");
  const second = await get(
    `/inference-profiles?maxResults=1000&type=SYSTEM_DEFINED&nextToken=${first.body.nextToken}`,
  );
  assertEquals([second.status, second.body.nextToken], [200, undefined]);
  const application = await get("/inference-profiles?type=APPLICATION");
  assertEquals(application.body.inferenceProfileSummaries[0].type, "APPLICATION");
  for (
    const refused of [
      "/inference-profiles?maxResults=0",
      "/inference-profiles?maxResults=1001",
      "/inference-profiles?type=CUSTOM",
      "/inference-profiles?nextToken=made-up",
      `/inference-profiles?type=APPLICATION&nextToken=${first.body.nextToken}`,
    ]
  ) {
    const answer = await get(refused);
    assertEquals([answer.status, answer.type], [400, "ValidationException"], refused);
  }
});

Deno.test("bedrock simulator: AWS's SDK embeds with Titan and Cohere; bad bodies are ValidationException", async () => {
  await using sim = startBedrockUpstream();
  const sdk = client(sim.endpoint);
  const invoke = async (modelId: string, body: unknown) =>
    JSON.parse(
      new TextDecoder().decode(
        (await sdk.send(new InvokeModelCommand({ modelId, body: JSON.stringify(body) }))).body,
      ),
    );
  try {
    const titan = await invoke(BEDROCK_TEST_TITAN, { inputText: "hello", dimensions: 256 });
    assertEquals(titan.embedding, simulatedVector(BEDROCK_TEST_TITAN, "hello", 256));
    assertEquals(titan.embeddingsByType.float, titan.embedding);
    assertOk(titan.inputTextTokenCount > 0);
    const plain = await invoke(BEDROCK_TEST_COHERE, {
      texts: ["a", "b"],
      input_type: "search_query",
    });
    assertEquals(plain.response_type, "embeddings_floats");
    assertEquals(plain.embeddings, [
      cohereVector(BEDROCK_TEST_COHERE, "search_query", "a", 1024),
      cohereVector(BEDROCK_TEST_COHERE, "search_query", "b", 1024),
    ]);
    const typed = await invoke(BEDROCK_TEST_COHERE, {
      texts: ["a"],
      input_type: "clustering",
      embedding_types: ["float"],
    });
    assertEquals(typed.response_type, "embeddings_by_type");
    assertEquals(typed.embeddings.float.length, 1);
    assertEquals(typed.texts, ["a"]);
    const bad: Array<[string, unknown]> = [
      [BEDROCK_TEST_TITAN, { inputText: "a", dimensions: 300 }],
      [BEDROCK_TEST_TITAN, { inputText: "a", texts: ["a"] }],
      [BEDROCK_TEST_TITAN, { inputText: "" }],
      [BEDROCK_TEST_COHERE, { texts: ["a"] }],
      [BEDROCK_TEST_COHERE, { texts: Array(97).fill("a"), input_type: "search_query" }],
      [BEDROCK_TEST_COHERE, { texts: ["a"], input_type: "search_query", dimensions: 256 }],
      [BEDROCK_TEST_COHERE, { texts: ["x".repeat(2049)], input_type: "search_query" }],
    ];
    for (const [modelId, body] of bad) {
      const error = await invoke(modelId, body).then(() => undefined, (error) => error);
      assertEquals(error?.name, "ValidationException", JSON.stringify(body));
      assertEquals(error?.$metadata?.httpStatusCode, 400);
    }
  } finally {
    sdk.destroy();
  }
});

Deno.test("bedrock simulator: AWS's SDK draws with Nova Canvas, Titan Image and SD3.5 Large; bad bodies, sizes and counts are ValidationException", async () => {
  await using sim = startBedrockUpstream();
  const sdk = client(sim.endpoint);
  const invoke = async (modelId: string, body: unknown) =>
    JSON.parse(
      new TextDecoder().decode(
        (await sdk.send(new InvokeModelCommand({ modelId, body: JSON.stringify(body) }))).body,
      ),
    );
  const textImage = (config: Record<string, unknown>, params: Record<string, unknown> = {}) => ({
    taskType: "TEXT_IMAGE",
    textToImageParams: { text: "a lighthouse", ...params },
    imageGenerationConfig: config,
  });
  try {
    // Two images: the SDK's reader under Deno keeps only the first 64 KiB of an answer body.
    const nova = await invoke(
      BEDROCK_TEST_NOVA_CANVAS,
      textImage({ numberOfImages: 2, width: 512, height: 2048, quality: "premium", seed: 7 }),
    );
    assertEquals(nova.images.length, 2);
    for (const [index, image] of nova.images.entries()) {
      assertEquals(
        image,
        solidRgbPng(
          512,
          2048,
          bedrockImageColor(BEDROCK_TEST_NOVA_CANVAS, "a lighthouse", "premium", index),
        ).toBase64(),
      );
      const { width, height } = readPng(Uint8Array.fromBase64(image));
      assertEquals([width, height], [512, 2048]);
    }
    const titan = await invoke(BEDROCK_TEST_TITAN_IMAGE, {
      taskType: "TEXT_IMAGE",
      textToImageParams: { text: "a square", negativeText: "blurry" },
    });
    const { width, height } = readPng(Uint8Array.fromBase64(titan.images[0]));
    assertEquals([titan.images.length, width, height], [1, 1024, 1024]);
    const sd = await invoke(BEDROCK_TEST_STABILITY, {
      prompt: "a lighthouse",
      aspect_ratio: "21:9",
      seed: 5,
    });
    assertEquals([sd.seeds, sd.finish_reasons, sd.images.length], [[5], [null], 1]);
    const sdPng = readPng(Uint8Array.fromBase64(sd.images[0]));
    assertEquals([sdPng.width, sdPng.height], [1536, 640]);
    const filtered = await invoke(BEDROCK_TEST_STABILITY, { prompt: "FILTERED" });
    assertEquals(filtered.finish_reasons, ["Filter reason: prompt"]);
    assertEquals(filtered.images, undefined);
    const bad: Array<[string, unknown]> = [
      [BEDROCK_TEST_STABILITY, { prompt: "a", aspect_ratio: "4:3" }],
      [BEDROCK_TEST_STABILITY, { prompt: "a", quality: "high" }],
      [BEDROCK_TEST_STABILITY, { prompt: "x".repeat(10_001) }],
      [BEDROCK_TEST_STABILITY, { aspect_ratio: "1:1" }],
      [BEDROCK_TEST_STABILITY, { prompt: "a", seed: -1 }],
      [BEDROCK_TEST_NOVA_CANVAS, textImage({ numberOfImages: 6 })],
      [BEDROCK_TEST_NOVA_CANVAS, textImage({ numberOfImages: 0 })],
      [BEDROCK_TEST_NOVA_CANVAS, textImage({ width: 1000, height: 1024 })],
      [BEDROCK_TEST_NOVA_CANVAS, textImage({ width: 4096, height: 1008 })],
      [BEDROCK_TEST_NOVA_CANVAS, textImage({ width: 2064, height: 2048 })],
      [BEDROCK_TEST_NOVA_CANVAS, textImage({ width: 304, height: 320 })],
      [BEDROCK_TEST_NOVA_CANVAS, textImage({ quality: "hd" })],
      [BEDROCK_TEST_NOVA_CANVAS, textImage({ style: "vivid" })],
      [BEDROCK_TEST_NOVA_CANVAS, textImage({ cfgScale: 11 })],
      [BEDROCK_TEST_NOVA_CANVAS, textImage({}, { text: "" })],
      [BEDROCK_TEST_NOVA_CANVAS, { ...textImage({}), user: "u" }],
      [BEDROCK_TEST_NOVA_CANVAS, { ...textImage({}), taskType: "INPAINTING" }],
      [BEDROCK_TEST_NOVA_CANVAS, { imageGenerationConfig: {} }],
      [BEDROCK_TEST_TITAN_IMAGE, textImage({ width: 1536, height: 1024 })],
      [BEDROCK_TEST_TITAN_IMAGE, textImage({}, { text: "x".repeat(513) })],
    ];
    for (const [modelId, body] of bad) {
      const error = await invoke(modelId, body).then(() => undefined, (error) => error);
      assertEquals(error?.name, "ValidationException", JSON.stringify(body));
      assertEquals(error?.$metadata?.httpStatusCode, 400);
    }
  } finally {
    sdk.destroy();
  }
});
