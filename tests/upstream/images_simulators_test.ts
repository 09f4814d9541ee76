/** Direct checks that the image simulators answer as the real APIs do. */

import { inflateSync } from "node:zlib";
import { assertEquals, assertOk, assertRejects } from "../helpers/assert.ts";
import {
  imageBytesFromItem,
  simulatedImagesUsage,
  startOpenAIImagesUpstream,
} from "./openai_images.ts";
import {
  GEMINI_IMAGE_TEXT,
  GEMINI_REFUSAL_TEXT,
  inlineImages,
  startGeminiUpstream,
} from "./gemini.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const KEY = "sk-upstream-test";
const GKEY = "gemini-upstream-test";

/** Checks signature, chunk CRCs and that IDAT inflates to the size IHDR announces. */
function assertPng(bytes: Uint8Array): { width: number; height: number } {
  assertEquals([...bytes.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10]);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const width = view.getUint32(16);
  const height = view.getUint32(20);
  const idat: number[] = [];
  let offset = 8;
  let last = "";
  while (offset < bytes.length) {
    const length = view.getUint32(offset);
    last = new TextDecoder().decode(bytes.subarray(offset + 4, offset + 8));
    if (last === "IDAT") idat.push(...bytes.subarray(offset + 8, offset + 8 + length));
    offset += 12 + length;
  }
  assertEquals(last, "IEND");
  assertEquals(inflateSync(new Uint8Array(idat)).length, height * (1 + 4 * width));
  return { width, height };
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

Deno.test("openai images: b64_json answer with distinct PNGs and usage", opts, async () => {
  await using up = startOpenAIImagesUpstream({ revisedPrompt: true });
  const res = await post(`${up.baseUrl}/images/generations`, {
    model: "gpt-image-1",
    prompt: "a red fox",
    n: 3,
    size: "1536x1024",
    quality: "high",
  }, { authorization: `Bearer ${KEY}` });
  assertEquals(res.status, 200);
  const json = await res.json();
  assertEquals(json.data.length, 3);
  const served = [...up.images.values()];
  const bytes = json.data.map((item: { b64_json: string }) => Uint8Array.fromBase64(item.b64_json));
  bytes.forEach((b: Uint8Array, i: number) => {
    assertEquals(assertPng(b), { width: 8, height: 8 });
    assertEquals(b, served[i]);
  });
  assertOk(new Set(bytes.map((b: Uint8Array) => b.join())).size === 3, "distinct images");
  assertEquals(json.data[0].revised_prompt, "A detailed rendering of: a red fox");
  assertEquals(json.usage, simulatedImagesUsage("a red fox", 0, 3, "high", "1536x1024"));
  assertEquals(json.usage.output_tokens, 3 * 6240);
  assertEquals(up.requests[0].body.n, 3);
  assertEquals(up.requests[0].authorization, `Bearer ${KEY}`);
});

Deno.test("openai images: url mode serves the files", opts, async () => {
  await using up = startOpenAIImagesUpstream({
    answer: "url",
    usage: false,
    maxImagesPerRequest: 2,
  });
  const res = await post(`${up.baseUrl}/images/generations`, { prompt: "x", n: 4 }, {
    authorization: `Bearer ${KEY}`,
  });
  const json = await res.json();
  assertEquals(json.data.length, 2);
  assertEquals("usage" in json, false);
  const item = json.data[0];
  assertOk(item.url.startsWith(`${up.origin}/files/`) && item.url.endsWith(".png"));
  const download = await fetch(item.url);
  assertEquals(download.headers.get("content-type"), "image/png");
  const bytes = new Uint8Array(await download.arrayBuffer());
  assertEquals(bytes, up.images.get(up.downloads[0]));
  assertEquals(await imageBytesFromItem(json.data[1]), [...up.images.values()][1]);
  const missing = await fetch(`${up.origin}/files/img_nope.png`);
  assertEquals(missing.status, 404);
  await missing.body?.cancel();
});

Deno.test("openai images: data_url mode", opts, async () => {
  await using up = startOpenAIImagesUpstream({ answer: "data_url" });
  const res = await post(`${up.baseUrl}/images/generations`, { prompt: "x" }, {
    authorization: `Bearer ${KEY}`,
  });
  const json = await res.json();
  assertEquals(json.data.length, 1);
  assertOk(json.data[0].b64_json.startsWith("data:image/png;base64,iVBOR"));
  assertEquals(await imageBytesFromItem(json.data[0]), [...up.images.values()][0]);
});

Deno.test("openai images: response_format, missing prompt, bad n, bad key", opts, async () => {
  await using up = startOpenAIImagesUpstream();
  const auth = { authorization: `Bearer ${KEY}` };
  let res = await post(`${up.baseUrl}/images/generations`, {
    prompt: "x",
    response_format: "b64_json",
  }, auth);
  assertEquals(res.status, 400);
  assertEquals(await res.json(), {
    error: {
      message: "Unknown parameter: 'response_format'.",
      type: "invalid_request_error",
      param: "response_format",
      code: "unknown_parameter",
    },
  });
  res = await post(`${up.baseUrl}/images/generations`, { n: 1 }, auth);
  assertEquals(res.status, 400);
  assertEquals((await res.json()).error.param, "prompt");
  res = await post(`${up.baseUrl}/images/generations`, { prompt: "x", n: 11 }, auth);
  assertEquals(res.status, 400);
  assertEquals((await res.json()).error.code, "integer_above_max_value");
  res = await post(`${up.baseUrl}/images/generations`, { prompt: "x" }, {
    authorization: "Bearer sk-wrong-key",
  });
  assertEquals(res.status, 401);
  const error = (await res.json()).error;
  assertEquals([error.type, error.param, error.code], [
    "invalid_request_error",
    null,
    "invalid_api_key",
  ]);
  assertOk(typeof error.message === "string");
});

Deno.test("openai images: multipart edit with image[] x2 and mask", opts, async () => {
  await using up = startOpenAIImagesUpstream();
  const png = (n: number) => new Uint8Array([137, 80, 78, 71, n]);
  const form = new FormData();
  form.append("model", "gpt-image-1");
  form.append("prompt", "a red fox");
  form.append("n", "2");
  form.append("size", "1024x1024");
  form.append("image[]", new Blob([png(1)], { type: "image/png" }), "a.png");
  form.append("image[]", new Blob([png(2)], { type: "image/png" }), "b.png");
  form.append("mask", new Blob([png(3), png(3)], { type: "image/png" }), "mask.png");
  const res = await fetch(`${up.baseUrl}/images/edits`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}` },
    body: form,
  });
  assertEquals(res.status, 200);
  const json = await res.json();
  assertEquals(json.data.length, 2);
  assertEquals(json.usage.input_tokens_details.image_tokens > 0, true);
  const request = up.requests[0];
  assertEquals(request.path, "/v1/images/edits");
  assertOk(request.contentType?.startsWith("multipart/form-data; boundary="));
  assertEquals(request.body, {
    model: "gpt-image-1",
    prompt: "a red fox",
    n: "2",
    size: "1024x1024",
  });
  assertEquals(
    request.files.map((f) => [f.field, f.filename, f.type, f.size]),
    [["image[]", "a.png", "image/png", 5], ["image[]", "b.png", "image/png", 5], [
      "mask",
      "mask.png",
      "image/png",
      10,
    ]],
  );
  assertEquals(request.files[1].bytes, png(2));

  // Same prompt as a generation: different pictures, so tests can tell an edit from a generation.
  const generated = await (await post(`${up.baseUrl}/images/generations`, { prompt: "a red fox" }, {
    authorization: `Bearer ${KEY}`,
  })).json();
  assertOk(generated.data[0].b64_json !== json.data[0].b64_json);

  const noImage = new FormData();
  noImage.append("prompt", "x");
  const bad = await fetch(`${up.baseUrl}/images/edits`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}` },
    body: noImage,
  });
  assertEquals(bad.status, 400);
  assertEquals((await bad.json()).error.param, "image");
});

Deno.test("openai images: faults", opts, async () => {
  await using up = startOpenAIImagesUpstream();
  const call = (signal?: AbortSignal) =>
    fetch(`${up.baseUrl}/images/generations`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ prompt: "x" }),
      signal,
    });
  up.faults.push(
    { kind: "status", status: 429, retryAfter: "2" },
    { kind: "reset" },
    { kind: "malformed" },
    { kind: "empty" },
    { kind: "hang" },
  );
  let res = await call();
  assertEquals(res.status, 429);
  assertEquals(res.headers.get("retry-after"), "2");
  assertEquals((await res.json()).error.code, "rate_limit_exceeded");
  await assertRejects(() => call());
  assertEquals(up.requests.length, 2, "the reset request was not retried behind our back");
  res = await call();
  assertEquals(res.status, 200);
  await assertRejects(() => res.json());
  res = await call();
  assertEquals((await res.json()).data, []);
  await assertRejects(() => call(AbortSignal.timeout(100)));
  res = await call();
  assertEquals((await res.json()).data.length, 1);
});

Deno.test(
  "openai images: delay ends when the client goes away; close() ends a hang",
  opts,
  async () => {
    const up = startOpenAIImagesUpstream({ delayMs: 5000 });
    const call = (signal?: AbortSignal) =>
      fetch(`${up.baseUrl}/images/generations`, {
        method: "POST",
        headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ prompt: "x" }),
        signal,
      });
    const started = Date.now();
    await assertRejects(() => call(AbortSignal.timeout(100)));
    up.fault = { kind: "hang" };
    const pending = call().catch(() => "rejected");
    await new Promise((resolve) => setTimeout(resolve, 100));
    await up.close();
    assertEquals(await pending, "rejected");
    assertOk(Date.now() - started < 3000);
  },
);

const generate = (base: string, model: string, body: unknown, key = GKEY, stream = false) =>
  post(
    `${base}/v1beta/models/${model}:${
      stream ? "streamGenerateContent?alt=sse" : "generateContent"
    }`,
    body,
    { "x-goog-api-key": key },
  );

const imageRequest = (prompt: string, extraParts: unknown[] = []) => ({
  contents: [{ role: "user", parts: [{ text: prompt }, ...extraParts] }],
  generationConfig: {
    responseModalities: ["TEXT", "IMAGE"],
    imageConfig: { aspectRatio: "16:9", imageSize: "2K" },
  },
});

Deno.test("gemini: image answer with a text part first", opts, async () => {
  await using up = startGeminiUpstream();
  const res = await generate(up.baseUrl, "gemini-3-pro-image-preview", imageRequest("a red fox"));
  assertEquals(res.status, 200);
  const json = await res.json();
  const candidate = json.candidates[0];
  assertEquals(candidate.finishReason, "STOP");
  assertEquals(candidate.content.role, "model");
  assertEquals(candidate.content.parts[0], { text: GEMINI_IMAGE_TEXT });
  assertEquals(candidate.content.parts[1].inlineData.mimeType, "image/png");
  const [image] = inlineImages(json);
  assertPng(image);
  assertEquals(image, [...up.images.values()][0]);
  assertEquals(json.modelVersion, "gemini-3-pro-image-preview");
  assertOk(typeof json.responseId === "string");
  assertEquals(json.usageMetadata.candidatesTokenCount, 5 + 1120);
  assertEquals(
    json.usageMetadata.totalTokenCount,
    json.usageMetadata.promptTokenCount + json.usageMetadata.candidatesTokenCount,
  );
  const recorded = up.requests[0];
  assertEquals(recorded.method, "generateContent");
  assertEquals(recorded.model, "gemini-3-pro-image-preview");
  assertEquals(recorded.apiKey, GKEY);
  assertEquals(
    (recorded.body.generationConfig as { imageConfig: unknown }).imageConfig,
    { aspectRatio: "16:9", imageSize: "2K" },
  );

  // An edit (input image present) draws something else; ?key= works too; IMAGE only: no text.
  const edit = await (await post(
    `${up.baseUrl}/v1beta/models/gemini-2.5-flash-image:generateContent?key=${GKEY}`,
    {
      contents: [{
        parts: [{ text: "a red fox" }, {
          inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" },
        }],
      }],
      generationConfig: { responseModalities: ["IMAGE"] },
    },
  )).json();
  assertEquals(edit.candidates[0].content.parts.length, 1);
  assertOk(inlineImages(edit)[0].join() !== image.join());
  assertEquals(up.requests[1].apiKey, GKEY);
  assertEquals(edit.usageMetadata.promptTokensDetails[1], { modality: "IMAGE", tokenCount: 258 });
});

Deno.test("gemini: errors, blocked, no_image", opts, async () => {
  await using up = startGeminiUpstream();
  let res = await generate(up.baseUrl, "m", imageRequest("x"), "bad-key");
  assertEquals(res.status, 400);
  const error = (await res.json()).error;
  assertEquals([error.code, error.message, error.status], [
    400,
    "API key not valid. Please pass a valid API key.",
    "INVALID_ARGUMENT",
  ]);
  res = await generate(up.baseUrl, "m", { contents: [] });
  assertEquals((await res.json()).error.status, "INVALID_ARGUMENT");
  res = await generate(up.baseUrl, "m", { contents: [{ role: "user", parts: [] }] });
  assertEquals(res.status, 400);
  await res.body?.cancel();

  up.faults.push(
    { kind: "status", status: 429 },
    { kind: "blocked" },
    { kind: "no_image" },
    { kind: "malformed" },
  );
  res = await generate(up.baseUrl, "m", imageRequest("x"));
  assertEquals(res.status, 429);
  assertEquals((await res.json()).error.status, "RESOURCE_EXHAUSTED");
  const blocked = await (await generate(up.baseUrl, "m", imageRequest("x"))).json();
  assertEquals(blocked.promptFeedback.blockReason, "SAFETY");
  assertEquals("candidates" in blocked, false);
  const refused = await (await generate(up.baseUrl, "m", imageRequest("x"))).json();
  assertEquals(refused.candidates[0].content.parts, [{ text: GEMINI_REFUSAL_TEXT }]);
  assertEquals(refused.candidates[0].finishReason, "STOP");
  res = await generate(up.baseUrl, "m", imageRequest("x"));
  await assertRejects(() => res.json());

  const text = await (await generate(up.baseUrl, "gemini-2.5-flash", {
    contents: [{ role: "user", parts: [{ text: "hello" }] }],
  })).json();
  assertEquals(text.candidates[0].content.parts, [{ text: "Echo: hello" }]);
});

Deno.test("gemini: SSE stream", opts, async () => {
  await using up = startGeminiUpstream({ imagesPerAnswer: 2 });
  const res = await generate(up.baseUrl, "img", imageRequest("a red fox"), GKEY, true);
  assertEquals(res.headers.get("content-type"), "text/event-stream");
  const raw = await res.text();
  assertOk(!raw.includes("[DONE]") && !raw.includes("event:"));
  const blocks = raw.split(/\r?\n\r?\n/).filter(Boolean).map((frame) => {
    assertOk(frame.startsWith("data: "));
    return JSON.parse(frame.slice(6));
  });
  assertEquals(blocks.length, 2);
  assertEquals(blocks[0].candidates[0].content.parts, [{ text: GEMINI_IMAGE_TEXT }]);
  assertEquals("usageMetadata" in blocks[0], false);
  assertEquals(inlineImages(blocks[1]).length, 2);
  assertEquals(blocks[1].candidates[0].finishReason, "STOP");
  assertEquals(blocks[1].usageMetadata.candidatesTokenCount, 5 + 2 * 1120);
  assertEquals(up.requests[0].method, "streamGenerateContent");
  assertEquals(blocks[0].responseId, blocks[1].responseId);
});
