import { assertEquals, assertOk, assertRejects, assertThrows } from "../../helpers/assert.ts";
import type { Channel } from "../../../core/channels/channel_schema.ts";
import {
  bedrockEmbedBodies,
  bedrockEmbedFamily,
  bedrockEmbedIgnoredFields,
  bedrockEmbedRefusal,
  bedrockEmbedRequests,
  readBedrockEmbeddings,
} from "../../../core/providers/bedrock_embeddings.ts";
import { bedrockProvider } from "../../../core/providers/bedrock.ts";

const TITAN = "amazon.titan-embed-text-v2:0";
const COHERE = "cohere.embed-english-v3";

Deno.test("bedrock embeddings: the family is read from the model id, a profile's or an ARN's model", () => {
  assertEquals(bedrockEmbedFamily(TITAN)?.name, "titan-v2");
  assertEquals(bedrockEmbedFamily("amazon.titan-embed-text-v1")?.name, "titan-g1");
  assertEquals(bedrockEmbedFamily(COHERE)?.name, "cohere-v3");
  assertEquals(bedrockEmbedFamily("cohere.embed-multilingual-v3")?.name, "cohere-v3");
  assertEquals(bedrockEmbedFamily("us.cohere.embed-v4:0")?.name, "cohere-v4");
  assertEquals(
    bedrockEmbedFamily(`arn:aws:bedrock:us-east-1::foundation-model/${TITAN}`)?.name,
    "titan-v2",
  );
  assertEquals(bedrockEmbedFamily("amazon.titan-embed-image-v1"), undefined);
  assertEquals(bedrockEmbedFamily("anthropic.claude-3-5-sonnet-20240620-v1:0"), undefined);
  assertEquals(bedrockProvider.kinds, ["text", "embedding", "image"]);
  assertOk(bedrockProvider.embedding);
});

Deno.test("bedrock embeddings: Titan V2 is one input a call, with its dimensions, normalised, floats", () => {
  const bodies = bedrockEmbedBodies(bedrockEmbedFamily(TITAN)!, {
    model: "m",
    inputs: ["one", "two"],
    dimensions: 256,
  });
  assertEquals(bodies, [
    {
      body: { inputText: "one", dimensions: 256, normalize: true, embeddingTypes: ["float"] },
      inputs: 1,
    },
    {
      body: { inputText: "two", dimensions: 256, normalize: true, embeddingTypes: ["float"] },
      inputs: 1,
    },
  ]);
  assertEquals(
    bedrockEmbedBodies(bedrockEmbedFamily(TITAN)!, { model: "m", inputs: ["x"] })[0].body,
    { inputText: "x", normalize: true, embeddingTypes: ["float"] },
  );
  assertEquals(
    bedrockEmbedBodies(bedrockEmbedFamily("amazon.titan-embed-text-v1")!, {
      model: "m",
      inputs: ["x"],
    })[0].body,
    { inputText: "x" },
  );
});

Deno.test("bedrock embeddings: Cohere takes 96 texts a call, taskType as input_type, v4's output_dimension", () => {
  const texts = Array.from({ length: 200 }, (_, i) => `text ${i}`);
  const bodies = bedrockEmbedBodies(bedrockEmbedFamily(COHERE)!, {
    model: "m",
    inputs: texts,
    taskType: "RETRIEVAL_QUERY",
  });
  assertEquals(bodies.map((call) => call.inputs), [96, 96, 8]);
  assertEquals(bodies[2].body, {
    texts: texts.slice(192),
    input_type: "search_query",
    embedding_types: ["float"],
  });
  for (
    const [taskType, inputType] of [
      ["RETRIEVAL_DOCUMENT", "search_document"],
      ["CLASSIFICATION", "classification"],
      ["CLUSTERING", "clustering"],
      ["SEMANTIC_SIMILARITY", "search_document"],
      [undefined, "search_document"],
    ]
  ) {
    const [call] = bedrockEmbedBodies(bedrockEmbedFamily(COHERE)!, {
      model: "m",
      inputs: ["a"],
      taskType,
    });
    assertEquals(call.body.input_type, inputType);
  }
  const [v4] = bedrockEmbedBodies(bedrockEmbedFamily("cohere.embed-v4:0")!, {
    model: "m",
    inputs: ["a"],
    dimensions: 512,
  });
  assertEquals(v4.body.output_dimension, 512);
});

Deno.test("bedrock embeddings: refused are unknown families, lengths a model does not make, over-long Cohere v3 texts", () => {
  assertEquals(
    bedrockEmbedRefusal(TITAN, { model: "m", inputs: ["a"], dimensions: 512 }),
    undefined,
  );
  assertEquals(
    bedrockEmbedRefusal(TITAN, { model: "m", inputs: ["a"], dimensions: 1024 }),
    undefined,
  );
  assertEquals(
    bedrockEmbedRefusal(TITAN, { model: "m", inputs: ["a"], dimensions: 300 })?.param,
    "dimensions",
  );
  assertOk(
    bedrockEmbedRefusal(TITAN, { model: "m", inputs: ["a"], dimensions: 300 })!.message
      .includes("256, 512, 1024"),
  );
  assertEquals(
    bedrockEmbedRefusal(COHERE, { model: "m", inputs: ["a"], dimensions: 1024 }),
    undefined,
  );
  assertEquals(
    bedrockEmbedRefusal(COHERE, { model: "m", inputs: ["a"], dimensions: 256 })?.param,
    "dimensions",
  );
  assertEquals(
    bedrockEmbedRefusal(COHERE, { model: "m", inputs: ["a", "x".repeat(2049)] })?.param,
    "input",
  );
  assertEquals(
    bedrockEmbedRefusal("amazon.titan-embed-image-v1", { model: "m", inputs: ["a"] })?.param,
    "model",
  );
});

Deno.test("bedrock embeddings: the ignored fields are user, titles, and taskType where the model has no input_type for it", () => {
  const job = { model: "m", inputs: ["a"], user: "u", titles: ["t"], taskType: "RETRIEVAL_QUERY" };
  assertEquals(bedrockEmbedIgnoredFields(TITAN, job), ["taskType", "title", "user"]);
  assertEquals(bedrockEmbedIgnoredFields(COHERE, job), ["title", "user"]);
  assertEquals(
    bedrockEmbedIgnoredFields(COHERE, {
      model: "m",
      inputs: ["a"],
      taskType: "CODE_RETRIEVAL_QUERY",
    }),
    ["taskType"],
  );
  assertEquals(bedrockEmbedIgnoredFields(COHERE, { model: "m", inputs: ["a"] }), []);
});

Deno.test("bedrock embeddings: the calls go to InvokeModel of the encoded id, signed, or with the API key", async () => {
  const channel = {
    base_url: "https://bedrock-runtime.us-east-1.amazonaws.com",
    region: "us-east-1",
  } as Channel;
  const [call] = await bedrockEmbedRequests(
    { channel, apiKey: "AKIAIOSFODNN7EXAMPLE:secret", model: TITAN },
    { model: "m", inputs: ["hello"] },
  );
  assertEquals(
    call.url,
    "https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.titan-embed-text-v2%3A0/invoke",
  );
  const headers = call.init.headers as Record<string, string>;
  assertOk(headers.authorization.startsWith("AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/"));
  assertEquals(call.inputs, 1);
  const [keyed] = await bedrockEmbedRequests(
    { channel: { ...channel, bedrock_auth: "api-key" }, apiKey: "bedrock-key", model: COHERE },
    { model: "m", inputs: ["a", "b"] },
  );
  assertEquals((keyed.init.headers as Record<string, string>).authorization, "Bearer bedrock-key");
  assertEquals(keyed.inputs, 2);
  await assertRejects(
    () =>
      bedrockEmbedRequests(
        { channel, apiKey: "AKIAIOSFODNN7EXAMPLE:secret", model: "amazon.titan-embed-image-v1" },
        { model: "m", inputs: ["a"] },
      ),
  );
});

Deno.test("bedrock embeddings: Titan's and Cohere's answers read, a wrong count a failed attempt", () => {
  assertEquals(
    readBedrockEmbeddings(
      JSON.stringify({
        embedding: [0.5, -0.5],
        inputTextTokenCount: 3,
        embeddingsByType: { float: [0.5, -0.5] },
      }),
      1,
    ),
    { vectors: [[0.5, -0.5]], inputTokens: 3 },
  );
  assertEquals(
    readBedrockEmbeddings(JSON.stringify({ embeddingsByType: { float: [1] } }), 1).vectors,
    [[1]],
  );
  assertEquals(
    readBedrockEmbeddings(
      JSON.stringify({ id: "x", embeddings: { float: [[1], [2]] }, texts: ["a", "b"] }),
      2,
    ),
    { vectors: [[1], [2]], inputTokens: undefined },
  );
  assertEquals(
    readBedrockEmbeddings(JSON.stringify({ embeddings: [[1], [2]] }), 2).vectors,
    [[1], [2]],
  );
  assertThrows(() => readBedrockEmbeddings(JSON.stringify({ embeddings: [[1]] }), 2));
  assertThrows(() => readBedrockEmbeddings(JSON.stringify({ embedding: ["x"] }), 1));
  assertThrows(() => readBedrockEmbeddings("not json", 1));
});
