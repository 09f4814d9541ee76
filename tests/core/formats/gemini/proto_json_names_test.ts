import { GatewayError } from "../../../../core/errors.ts";
import {
  jsonNameOf,
  normaliseProtoJsonNames,
} from "../../../../core/formats/gemini/proto_json_names.ts";
import { assertEquals, assertOk } from "../../../helpers/assert.ts";

function errorOf(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (error) {
    assertOk(error instanceof GatewayError, String(error));
    return error;
  }
  throw new Error("expected a GatewayError");
}

Deno.test("jsonNameOf: proto names as protoc's JSON names; JSON names stay", () => {
  assertEquals(jsonNameOf("max_output_tokens"), "maxOutputTokens");
  assertEquals(jsonNameOf("generate_content_request"), "generateContentRequest");
  assertEquals(jsonNameOf("mime_type"), "mimeType");
  assertEquals(jsonNameOf("systemInstruction"), "systemInstruction");
  assertEquals(jsonNameOf("text"), "text");
});

Deno.test("normaliseProtoJsonNames: a snake_case request reads as its camelCase twin", () => {
  const snake = {
    system_instruction: { parts: [{ text: "Be brief." }] },
    contents: [{
      role: "user",
      parts: [
        { text: "hi" },
        { inline_data: { mime_type: "image/png", data: "AAAA" } },
        { file_data: { mime_type: "image/png", file_uri: "https://x/y.png" } },
      ],
    }],
    generation_config: {
      max_output_tokens: 100,
      candidate_count: 1,
      response_modalities: ["TEXT"],
      response_mime_type: "application/json",
      thinking_config: { thinking_budget: 512, include_thoughts: true },
      image_config: { aspect_ratio: "16:9", image_size: "2K" },
    },
    tool_config: {
      function_calling_config: { mode: "ANY", allowed_function_names: ["get_weather"] },
    },
    safety_settings: [{ category: "HARM_CATEGORY_HATE_SPEECH", threshold: "BLOCK_NONE" }],
    cached_content: "cachedContents/abc",
  };
  assertEquals(normaliseProtoJsonNames(snake), {
    systemInstruction: { parts: [{ text: "Be brief." }] },
    contents: [{
      role: "user",
      parts: [
        { text: "hi" },
        { inlineData: { mimeType: "image/png", data: "AAAA" } },
        { fileData: { mimeType: "image/png", fileUri: "https://x/y.png" } },
      ],
    }],
    generationConfig: {
      maxOutputTokens: 100,
      candidateCount: 1,
      responseModalities: ["TEXT"],
      responseMimeType: "application/json",
      thinkingConfig: { thinkingBudget: 512, includeThoughts: true },
      imageConfig: { aspectRatio: "16:9", imageSize: "2K" },
    },
    toolConfig: {
      functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_weather"] },
    },
    safetySettings: [{ category: "HARM_CATEGORY_HATE_SPEECH", threshold: "BLOCK_NONE" }],
    cachedContent: "cachedContents/abc",
  });
  const camel = normaliseProtoJsonNames(snake);
  assertEquals(normaliseProtoJsonNames(camel), camel, "camelCase bodies pass unchanged");
});

Deno.test("normaliseProtoJsonNames: Struct / Value contents and map keys stay the client's", () => {
  const struct = { city_name: "Paris", nested_value: { inner_key: [{ deep_key: 1 }] } };
  const body = {
    contents: [
      { role: "model", parts: [{ function_call: { name: "get_weather", args: struct } }] },
      {
        role: "user",
        parts: [{
          function_response: { name: "get_weather", response: struct },
          part_metadata: struct,
        }],
      },
    ],
    tools: [{
      function_declarations: [{
        name: "get_weather",
        parameters: {
          type: "OBJECT",
          properties: {
            city_name: { type: "STRING", max_length: 40, example: struct },
            unit_list: { type: "ARRAY", items: { type: "STRING", min_length: 1 } },
            either_one: {
              any_of: [{ type: "STRING" }, { type: "OBJECT", properties: { a_b: {} } }],
            },
          },
          property_ordering: ["city_name", "unit_list"],
          required: ["city_name"],
          default: struct,
        },
        parameters_json_schema: { type: "object", properties: { city_name: { max_length: 4 } } },
        response: { type: "OBJECT", properties: { report_text: { type: "STRING" } } },
        response_json_schema: struct,
      }],
    }],
    generation_config: {
      response_schema: { type: "OBJECT", properties: { answer_text: { type: "STRING" } } },
      response_json_schema: struct,
    },
    labels: { team_name: "x" },
  };
  assertEquals(normaliseProtoJsonNames(body), {
    contents: [
      { role: "model", parts: [{ functionCall: { name: "get_weather", args: struct } }] },
      {
        role: "user",
        parts: [{
          functionResponse: { name: "get_weather", response: struct },
          partMetadata: struct,
        }],
      },
    ],
    tools: [{
      functionDeclarations: [{
        name: "get_weather",
        parameters: {
          type: "OBJECT",
          properties: {
            city_name: { type: "STRING", maxLength: 40, example: struct },
            unit_list: { type: "ARRAY", items: { type: "STRING", minLength: 1 } },
            either_one: {
              anyOf: [{ type: "STRING" }, { type: "OBJECT", properties: { a_b: {} } }],
            },
          },
          propertyOrdering: ["city_name", "unit_list"],
          required: ["city_name"],
          default: struct,
        },
        parametersJsonSchema: { type: "object", properties: { city_name: { max_length: 4 } } },
        response: { type: "OBJECT", properties: { report_text: { type: "STRING" } } },
        responseJsonSchema: struct,
      }],
    }],
    generationConfig: {
      responseSchema: { type: "OBJECT", properties: { answer_text: { type: "STRING" } } },
      responseJsonSchema: struct,
    },
    labels: { team_name: "x" },
  });
});

Deno.test("normaliseProtoJsonNames: countTokens' generate_content_request is read too", () => {
  assertEquals(
    normaliseProtoJsonNames({
      generate_content_request: {
        model: "models/x",
        contents: [{ parts: [{ text: "a" }] }],
        system_instruction: { parts: [{ text: "s" }] },
      },
    }),
    {
      generateContentRequest: {
        model: "models/x",
        contents: [{ parts: [{ text: "a" }] }],
        systemInstruction: { parts: [{ text: "s" }] },
      },
    },
  );
});

Deno.test("normaliseProtoJsonNames: one field under both names is a 400 naming it", () => {
  const error = errorOf(() =>
    normaliseProtoJsonNames({
      contents: [],
      generationConfig: { maxOutputTokens: 5, max_output_tokens: 6 },
    })
  );
  assertEquals(error.status, 400);
  assertEquals(error.param, "generationConfig.maxOutputTokens");
  assertOk(error.message.includes("'maxOutputTokens' and 'max_output_tokens'"), error.message);
  const twice = errorOf(() =>
    normaliseProtoJsonNames({ system_instruction: {}, systemInstruction: {} })
  );
  assertEquals(twice.param, "systemInstruction");
});

Deno.test("normaliseProtoJsonNames: non-object bodies pass for validation to refuse", () => {
  assertEquals(normaliseProtoJsonNames(null), null);
  assertEquals(normaliseProtoJsonNames([1]), [1]);
  assertEquals(normaliseProtoJsonNames("x"), "x");
});
