import { assertEquals, assertOk } from "../../helpers/assert.ts";
import {
  BEDROCK_MODEL_LIST,
  bedrockControlUrl,
  readBedrockModels,
} from "../../../core/providers/bedrock_model_list.ts";
import { channelRecord } from "../../helpers/channel_record.ts";

Deno.test("bedrock model list: the control plane's host for AWS's runtime host, else the base URL", () => {
  for (
    const [base, control] of [
      [
        "https://bedrock-runtime.us-east-1.amazonaws.com",
        "https://bedrock.us-east-1.amazonaws.com",
      ],
      [
        "https://bedrock-runtime-fips.us-gov-west-1.amazonaws.com",
        "https://bedrock-fips.us-gov-west-1.amazonaws.com",
      ],
      [
        "https://bedrock-runtime.cn-north-1.amazonaws.com.cn",
        "https://bedrock.cn-north-1.amazonaws.com.cn",
      ],
      ["http://127.0.0.1:8123", "http://127.0.0.1:8123"],
      ["https://proxy.example.com/bedrock/", "https://proxy.example.com/bedrock"],
      [
        "https://vpce-0a1b-x.bedrock-runtime.us-east-1.vpce.amazonaws.com",
        "https://vpce-0a1b-x.bedrock-runtime.us-east-1.vpce.amazonaws.com",
      ],
    ]
  ) assertEquals(bedrockControlUrl({ base_url: base }), control, base);
});

Deno.test("bedrock model list: on-demand text, text embedding and known image models, then the active profiles, page by page", () => {
  const models = JSON.stringify({
    modelSummaries: [
      {
        modelId: "anthropic.claude-3-5-sonnet-20240620-v1:0",
        modelName: "Claude 3.5 Sonnet",
        outputModalities: ["TEXT"],
        inferenceTypesSupported: ["ON_DEMAND"],
      },
      {
        modelId: "anthropic.claude-sonnet-4-20250514-v1:0",
        outputModalities: ["TEXT"],
        inferenceTypesSupported: ["INFERENCE_PROFILE"],
      },
      {
        modelId: "amazon.titan-embed-text-v2:0",
        outputModalities: ["EMBEDDING"],
        inferenceTypesSupported: ["ON_DEMAND"],
      },
      {
        modelId: "amazon.titan-embed-image-v1",
        outputModalities: ["EMBEDDING"],
        inferenceTypesSupported: ["ON_DEMAND"],
      },
      {
        modelId: "amazon.titan-image-generator-v2:0",
        outputModalities: ["IMAGE"],
        inferenceTypesSupported: ["ON_DEMAND"],
      },
      {
        modelId: "amazon.nova-canvas-v1:0",
        outputModalities: ["IMAGE"],
        inferenceTypesSupported: ["ON_DEMAND"],
      },
      {
        modelId: "stability.sd3-5-large-v1:0",
        outputModalities: ["IMAGE"],
        inferenceTypesSupported: ["ON_DEMAND"],
      },
      {
        modelId: "stability.stable-image-ultra-v1:1",
        outputModalities: ["IMAGE"],
        inferenceTypesSupported: ["ON_DEMAND"],
      },
      { modelId: "meta.llama3-8b-instruct-v1:0" },
      { modelName: "no id" },
    ],
  });
  assertEquals(readBedrockModels(models), {
    models: [
      { id: "anthropic.claude-3-5-sonnet-20240620-v1:0", label: "Claude 3.5 Sonnet" },
      { id: "amazon.titan-embed-text-v2:0", label: undefined },
      { id: "amazon.titan-image-generator-v2:0", label: undefined },
      { id: "amazon.nova-canvas-v1:0", label: undefined },
      { id: "stability.sd3-5-large-v1:0", label: undefined },
      { id: "meta.llama3-8b-instruct-v1:0", label: undefined },
    ],
    next: "profiles:",
  });
  const profiles = JSON.stringify({
    inferenceProfileSummaries: [
      {
        inferenceProfileId: "us.anthropic.claude-sonnet-4-20250514-v1:0",
        inferenceProfileName: "US Claude Sonnet 4",
        status: "ACTIVE",
      },
      { inferenceProfileId: "us.gone", status: "DELETING" },
    ],
    nextToken: "abc/+=",
  });
  assertEquals(readBedrockModels(profiles, "profiles:"), {
    models: [{ id: "us.anthropic.claude-sonnet-4-20250514-v1:0", label: "US Claude Sonnet 4" }],
    next: "profiles:abc/+=",
  });
  assertEquals(readBedrockModels('{"inferenceProfileSummaries":[]}', "profiles:abc"), {
    models: [],
    next: undefined,
  });
  assertEquals(readBedrockModels("not json"), { models: [], next: "profiles:" });
});

Deno.test("bedrock model list: the requests, signed for bedrock in the channel's region", async () => {
  const channel = channelRecord("c", {
    type: "bedrock",
    base_url: "https://bedrock-runtime.eu-central-1.amazonaws.com",
    region: "eu-central-1",
  });
  const key = "AKIAIOSFODNN7EXAMPLE:wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
  const first = await BEDROCK_MODEL_LIST.request({ channel, apiKey: key });
  assertEquals([first.url, first.init.method], [
    "https://bedrock.eu-central-1.amazonaws.com/foundation-models",
    "GET",
  ]);
  const authorization = (first.init.headers as Record<string, string>).authorization;
  assertOk(/\/eu-central-1\/bedrock\/aws4_request/.test(authorization), authorization);
  const profiles = await BEDROCK_MODEL_LIST.request({ channel, apiKey: key }, "profiles:t/2");
  assertEquals(
    profiles.url,
    "https://bedrock.eu-central-1.amazonaws.com/inference-profiles?maxResults=1000" +
      "&type=SYSTEM_DEFINED&nextToken=t%2F2",
  );
  const bearer = await BEDROCK_MODEL_LIST.request({
    channel: { ...channel, bedrock_auth: "api-key" },
    apiKey: "ABSK-key",
  }, "profiles:");
  assertEquals(
    bearer.url,
    "https://bedrock.eu-central-1.amazonaws.com/inference-profiles?maxResults=1000&type=SYSTEM_DEFINED",
  );
  assertEquals(
    (bearer.init.headers as Record<string, string>).authorization,
    "Bearer ABSK-key",
  );
});
