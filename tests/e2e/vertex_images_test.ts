/**
 * Image models on a `vertex` channel end to end, through the official SDKs: the openai SDK's
 * `images.generate` on Imagen (`:predict`, n=2 in one call, n=6 in two, sizes as aspect ratios,
 * b64_json and hosted url) and on a Gemini image model (`:generateContent`, one call an image),
 * an image task, @google/genai's `models.generateContent` on both, the channel's Test button, and
 * sizes or edits Imagen cannot serve refused at no charge; the wallet against the receipts.
 */

import OpenAI, { toFile } from "openai";
import { GoogleGenAI } from "@google/genai";
import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { postJson, serverTest } from "../helpers/gateway.ts";
import { IMAGE_PRICE } from "../helpers/image_setup.ts";
import { squarePngWithTransparency } from "../helpers/png_fixtures.ts";
import { setupVertex, type VertexSetup, walletMatchesReceipts } from "../helpers/vertex_setup.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const IMAGEN = "vi-imagen";
const GEMINI_IMAGE = "vi-gemini-image";

/** A second vertex channel on the same simulator with an Imagen and a Gemini image model. */
async function withImageChannel(s: VertexSetup): Promise<string> {
  for (const model of [IMAGEN, GEMINI_IMAGE]) {
    await s.gw.putModel(model, { kind: "image", price: IMAGE_PRICE });
  }
  const channel = await s.gw.addChannel({
    ...s.channelFields(),
    name: "vertex-images",
    models: [IMAGEN, GEMINI_IMAGE],
    model_map: { [IMAGEN]: "imagen-4.0-generate-001", [GEMINI_IMAGE]: "gemini-2.5-flash-image" },
  });
  return channel.id;
}

function openaiOf(s: VertexSetup): OpenAI {
  return new OpenAI({ apiKey: s.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
}

/** A PNG's width and height, read from its IHDR chunk (after checking the signature). */
function pngShape(bytes: Uint8Array): [number, number] {
  assertEquals([...bytes.slice(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10]);
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  return [view.getUint32(16), view.getUint32(20)];
}

const callsOf = (s: VertexSetup, method: string) =>
  s.sim.requests.filter((request) => request.method === method);

Deno.test(
  "vertex images: Imagen through the openai SDK, b64_json and url, sizes as aspect ratios, billed per image",
  serverTest,
  async () => {
    await using s = await setupVertex();
    const channelId = await withImageChannel(s);
    const openai = openaiOf(s);

    const { data: two, response } = await openai.images.generate({
      model: IMAGEN,
      prompt: "a lighthouse at dusk",
      n: 2,
      size: "1024x1536",
      response_format: "b64_json",
      quality: "high",
    }).withResponse();
    assertEquals(two.data!.length, 2);
    const shapes = two.data!.map((item) => pngShape(Uint8Array.fromBase64(item.b64_json!)));
    assertEquals(shapes, [[6, 8], [6, 8]], "3:4 images");
    assertOk(two.data![0].b64_json !== two.data![1].b64_json, "two distinct images");
    assertEquals(response.headers.get("x-gateway-channel"), channelId);
    assertEquals(response.headers.get("x-gateway-billed-images"), "2");
    assertEquals(response.headers.get("x-gateway-ignored-fields"), "quality");
    const [sent] = callsOf(s, "predict");
    assertEquals([sent.publisher, sent.model], ["google", "imagen-4.0-generate-001"]);
    assertOk(sent.token?.startsWith("ya29."), "a bearer token from the service account key");
    assertEquals(sent.body, {
      instances: [{ prompt: "a lighthouse at dusk" }],
      parameters: { sampleCount: 2, aspectRatio: "3:4", outputOptions: { mimeType: "image/png" } },
    });

    // Six images are two calls (Imagen draws at most 4 a call); hosted as URLs.
    const six = await openai.images.generate({
      model: IMAGEN,
      prompt: "six boats",
      n: 6,
      size: "2048x1152",
      response_format: "url",
    });
    assertEquals(six.data!.length, 6);
    assertEquals(
      callsOf(s, "predict").slice(1).map((call) => (call.body.parameters as Json).sampleCount)
        .sort(),
      [2, 4],
    );
    assertEquals((callsOf(s, "predict")[1].body.parameters as Json).aspectRatio, "16:9");
    for (const item of six.data!) {
      assertOk(item.url!.startsWith(`${s.gw.url}/media/med_`), item.url);
      const download = await fetch(item.url!);
      assertEquals(download.status, 200);
      assertEquals(pngShape(new Uint8Array(await download.arrayBuffer())), [16, 9]);
    }

    const records = await walletMatchesReceipts(s);
    assertEquals(records.map((record) => record.receipt.units), [{ images: 2 }, { images: 6 }]);
    assertEquals(
      records.map((record) => record.receipt.charged),
      [2 * IMAGE_PRICE.per_image, 6 * IMAGE_PRICE.per_image],
    );
  },
);

Deno.test(
  "vertex images: a Gemini image model draws one image a generateContent call, and as a task",
  serverTest,
  async () => {
    await using s = await setupVertex();
    await withImageChannel(s);
    const answer = await openaiOf(s).images.generate({
      model: GEMINI_IMAGE,
      prompt: "a green owl",
      n: 2,
      size: "1536x1024",
      response_format: "b64_json",
    });
    assertEquals(answer.data!.length, 2);
    for (const item of answer.data!) pngShape(Uint8Array.fromBase64(item.b64_json!));
    const calls = callsOf(s, "generateContent");
    assertEquals(calls.length, 2);
    assertEquals(calls.map((call) => call.model), Array(2).fill("gemini-2.5-flash-image"));
    assertOk(calls.every((call) => call.token?.startsWith("ya29.")));
    assertEquals(calls[0].body.generationConfig as Json, {
      responseModalities: ["IMAGE"],
      imageConfig: { aspectRatio: "3:2", imageSize: "1K" },
    });
    // What reached the Gemini simulator behind Vertex: the same body.
    assertEquals(s.sim.gemini.requests.at(-1)!.model, "gemini-2.5-flash-image");

    await walletMatchesReceipts(s);
    const before = await s.gw.balance(s.keyId);

    // Imagen as a task: submitted, then polled to success with hosted URLs, two images billed.
    const submitted = await postJson(s.gw, "/v1/images/generations", s.key, {
      model: IMAGEN,
      prompt: "a task of two",
      n: 2,
    }, { "x-gateway-async-task": "true" });
    assertEquals(submitted.status, 200);
    const taskId = (await submitted.json()).data.task_id;
    let task: Json;
    for (let i = 0; i < 400; i++) {
      const polled = await fetch(`${s.gw.url}/v1/images/tasks/${taskId}`, {
        headers: { authorization: `Bearer ${s.key}` },
      });
      task = (await polled.json()).data;
      if (task.status === "succeeded" || task.status === "failed") break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assertEquals(task.status, "succeeded", JSON.stringify(task));
    assertEquals(task.image_urls.length, 2);
    await s.gw.settle();
    assertEquals(await s.gw.assertLedgerInvariant(s.keyId), before - 2 * IMAGE_PRICE.per_image);
  },
);

Deno.test(
  "vertex images: @google/genai generateContent, passed through on Gemini, a predict call on Imagen",
  serverTest,
  async () => {
    await using s = await setupVertex();
    await withImageChannel(s);
    const ai = new GoogleGenAI({ apiKey: s.key, httpOptions: { baseUrl: s.gw.url } });
    const drawn = await ai.models.generateContent({
      model: GEMINI_IMAGE,
      contents: "draw a red fox",
      config: { responseModalities: ["TEXT", "IMAGE"] },
    });
    const parts = drawn.candidates![0].content!.parts!;
    assertOk(parts[0].text, "the upstream's text part is kept");
    const images = parts.filter((part) => part.inlineData?.data);
    assertEquals(images.length, 1);
    pngShape(Uint8Array.fromBase64(images[0].inlineData!.data!));
    const [passed] = callsOf(s, "generateContent");
    assertEquals(passed.model, "gemini-2.5-flash-image");
    assertEquals((passed.body.generationConfig as Json).responseModalities, ["TEXT", "IMAGE"]);

    const imagen = await ai.models.generateContent({
      model: IMAGEN,
      contents: "draw a tall tower",
      config: { responseModalities: ["IMAGE"], imageConfig: { aspectRatio: "9:16" } },
    });
    const drawnByImagen = imagen.candidates![0].content!.parts!.filter((part) => part.inlineData);
    assertEquals(drawnByImagen.length, 1);
    // A portrait ratio is the images API's portrait size (1024x1536), which Imagen draws at 3:4.
    assertEquals(pngShape(Uint8Array.fromBase64(drawnByImagen[0].inlineData!.data!)), [6, 8]);
    const [predicted] = callsOf(s, "predict");
    assertEquals(predicted.body.instances, [{ prompt: "draw a tall tower" }]);
    assertEquals((predicted.body.parameters as Json).aspectRatio, "3:4");
    assertEquals(callsOf(s, "generateContent").length, 1, "Imagen is never sent generateContent");
    const records = await walletMatchesReceipts(s);
    assertEquals(records.map((record) => record.receipt.units), [{ images: 1 }, { images: 1 }]);
  },
);

Deno.test(
  "vertex images: a size with no Imagen ratio, a size too large, and an edit are 400s, nothing charged",
  serverTest,
  async () => {
    await using s = await setupVertex();
    await withImageChannel(s);
    const opening = await s.gw.balance(s.keyId);
    const openai = openaiOf(s);
    const cases: Array<[string, () => Promise<unknown>, string]> = [
      [
        "3:1",
        () => openai.images.generate({ model: IMAGEN, prompt: "a", size: "1920x640" as Json }),
        "size",
      ],
      [
        "4K",
        () => openai.images.generate({ model: IMAGEN, prompt: "a", size: "3840x2160" as Json }),
        "size",
      ],
      [
        "an edit",
        async () =>
          openai.images.edit({
            model: IMAGEN,
            prompt: "make it blue",
            image: await toFile(squarePngWithTransparency(32), "in.png", {
              type: "image/png",
            }),
          }),
        "model",
      ],
    ];
    for (const [name, call, param] of cases) {
      const error = await call().then(() => undefined, (caught) => caught);
      assertOk(error instanceof OpenAI.APIError, `${name}: ${error}`);
      assertEquals([error.status, error.param], [400, param], `${name}: ${error.message}`);
    }
    assertOk(
      (await openai.images.generate({ model: IMAGEN, prompt: "a", size: "1920x640" as Json })
        .catch((caught) => caught)).message.includes("1:1, 3:4, 4:3, 9:16, 16:9"),
    );
    // The Gemini image model draws 3:1 (as 21:9): the refusal is Imagen's alone.
    const wide = await openai.images.generate({
      model: GEMINI_IMAGE,
      prompt: "a panorama",
      size: "1920x640" as Json,
    });
    assertEquals(wide.data!.length, 1);
    assertEquals(callsOf(s, "predict").length, 0, "nothing sent to Imagen");
    const records = await walletMatchesReceipts(s);
    assertEquals(records.filter((record) => record.status === 200).length, 1);
    await assertNothingCharged(s, opening - IMAGE_PRICE.per_image);
  },
);

Deno.test(
  "vertex images: the channel's Test button draws one 1024x1024 image on Imagen and Gemini, billed nowhere",
  serverTest,
  async () => {
    await using s = await setupVertex();
    const channelId = await withImageChannel(s);
    const path = `/admin/channels/${channelId}/test`;
    for (const model of [IMAGEN, GEMINI_IMAGE]) {
      const passed = await s.gw.admin("POST", path, { model });
      assertEquals(passed.status, 200, JSON.stringify(passed.body));
      assertEquals({ ...passed.body, latency_ms: 0 }, {
        ok: true,
        status: 200,
        latency_ms: 0,
        model,
        channel_id: channelId,
        call: "one 1024x1024 image (billed upstream, not by the gateway)",
      });
    }
    assertEquals(callsOf(s, "predict").map((call) => call.body.parameters), [
      { sampleCount: 1, aspectRatio: "1:1", outputOptions: { mimeType: "image/png" } },
    ]);
    assertEquals(
      (callsOf(s, "generateContent")[0].body.generationConfig as Json).imageConfig,
      { aspectRatio: "1:1", imageSize: "1K" },
    );
    await s.gw.settle();
    assertEquals((await s.gw.admin("GET", "/admin/requests")).body.data, []);
    assertEquals(await s.gw.balance(s.keyId), s.startBalance);
  },
);

Deno.test(
  "vertex images: a channel whose Imagen cannot serve the size is skipped for one that can",
  serverTest,
  async () => {
    await using s = await setupVertex();
    await s.gw.putModel(IMAGEN, { kind: "image", price: IMAGE_PRICE });
    const imagenChannel = await s.gw.addChannel({
      ...s.channelFields(),
      name: "vertex-imagen",
      priority: 10,
      models: [IMAGEN],
      model_map: { [IMAGEN]: "imagen-3.0-generate-002" },
    });
    const geminiChannel = await s.gw.addChannel({
      ...s.channelFields(),
      name: "vertex-gemini-image",
      priority: 0,
      models: [IMAGEN],
      model_map: { [IMAGEN]: "gemini-2.5-flash-image" },
    });
    const openai = openaiOf(s);
    const square = await openai.images.generate({ model: IMAGEN, prompt: "a" }).withResponse();
    assertEquals(square.response.headers.get("x-gateway-channel"), imagenChannel.id);
    const wide = await openai.images.generate({
      model: IMAGEN,
      prompt: "a wide one",
      size: "1920x640" as Json,
    }).withResponse();
    assertEquals(wide.response.headers.get("x-gateway-channel"), geminiChannel.id);
    assertEquals(callsOf(s, "predict").length, 1, "the wide one never reached Imagen");
    assertEquals(callsOf(s, "generateContent").length, 1);
    await walletMatchesReceipts(s);
  },
);
