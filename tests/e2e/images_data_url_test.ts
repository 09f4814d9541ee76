/**
 * An openai-images upstream that answers `{"data":[{"url":"data:image/png;base64,…"}]}` (some
 * relays do) is delivered as one that answers `b64_json`: hosted for `url`, decoded for
 * `b64_json`, hosted as a task's results, and as `inlineData` through generateContent; each image
 * billed once, as a success.
 */

import { toFile } from "openai";
import { GoogleGenAI } from "@google/genai";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { postJson, serverTest } from "../helpers/gateway.ts";
import { IMAGE_MODEL, setupImages } from "../helpers/image_setup.ts";
import { solidPng, squarePngWithTransparency } from "../helpers/png_fixtures.ts";
import { waitForImageTask } from "../helpers/webhook_setup.ts";

const OPENING = 10_000_000;
const PER_IMAGE = 40_000;

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

function dataUrlSetup(env: Record<string, string> = {}) {
  return setupImages("openai-images", { openai: { answer: "data_url_in_url" }, env });
}

type Setup = Awaited<ReturnType<typeof dataUrlSetup>>;

/** The upstream served these bytes. */
function served(s: Setup, bytes: Uint8Array): boolean {
  return [...s.openai!.images.values()].some((image) => sameBytes(image, bytes));
}

/** The key paid `images` images in settled requests or tasks, and no hold stays open. */
async function assertBilledAsSuccess(s: Setup, images: number, requests: number) {
  assertEquals(await s.gw.assertLedgerInvariant(s.keyId), OPENING - images * PER_IMAGE);
  const entries = await s.gw.ledger(s.keyId);
  assertEquals(entries.filter((entry) => entry.type === "settle").length, requests);
  assertEquals(entries.filter((entry) => entry.type === "release").length, 0);
}

/** A hosted link of this gateway whose bytes are an image the upstream served. */
async function assertHosted(s: Setup, url: string) {
  assertOk(url.startsWith(`${s.gw.url}/media/med_`), url);
  const download = await fetch(url);
  assertEquals(download.headers.get("content-type"), "image/png");
  assertOk(served(s, new Uint8Array(await download.arrayBuffer())), "hosted bytes differ");
}

Deno.test(
  "data URL in url: images.generate as url is hosted, as b64_json is decoded; billed per image",
  serverTest,
  async () => {
    await using s = await dataUrlSetup();
    const asUrl = await s.client.images.generate({ model: IMAGE_MODEL, prompt: "a kite", n: 2 })
      .withResponse();
    assertEquals(asUrl.data.data!.length, 2);
    for (const item of asUrl.data.data!) await assertHosted(s, item.url!);
    assertEquals(asUrl.response.headers.get("x-gateway-billed-images"), "2");

    const asB64 = await s.client.images.generate({
      model: IMAGE_MODEL,
      prompt: "a kite",
      response_format: "b64_json",
    }).withResponse();
    assertEquals(asB64.data.data!.length, 1);
    const b64 = asB64.data.data![0].b64_json!;
    assertOk(!b64.startsWith("data:"), "plain base64, not a data URL");
    assertOk(served(s, Uint8Array.fromBase64(b64)), "decoded bytes differ from the upstream's");
    assertEquals(asB64.data.data![0].url, undefined);
    assertEquals(asB64.response.headers.get("x-gateway-billed-images"), "1");
    await s.gw.settle();
    await assertBilledAsSuccess(s, 3, 2);
  },
);

Deno.test(
  "data URL in url: parameters, any case and percent-encoding are read as the same image",
  serverTest,
  async () => {
    await using s = await dataUrlSetup();
    const png = solidPng(8, 8, [10, 20, 30, 255]);
    const percent = [...png].map((byte) => `%${byte.toString(16).padStart(2, "0")}`).join("");
    const variants = [
      `data:image/png;name=kite.png;base64,${png.toBase64()}`,
      `DATA:image/PNG;BASE64,${png.toBase64()}`,
      `data:;base64,${png.toBase64()}`,
      `data:image/png,${percent}`,
    ];
    for (const url of variants) {
      s.openai!.options.resultUrl = url;
      const asB64 = await s.client.images.generate({
        model: IMAGE_MODEL,
        prompt: "a kite",
        response_format: "b64_json",
      });
      assertOk(sameBytes(Uint8Array.fromBase64(asB64.data![0].b64_json!), png), url);
      const asUrl = await s.client.images.generate({ model: IMAGE_MODEL, prompt: "a kite" });
      const hosted = asUrl.data![0].url!;
      assertOk(hosted.startsWith(`${s.gw.url}/media/med_`), hosted);
      assertOk(sameBytes(new Uint8Array(await (await fetch(hosted)).arrayBuffer()), png), url);
    }
    await s.gw.settle();
    await assertBilledAsSuccess(s, 2 * variants.length, 2 * variants.length);
  },
);

Deno.test(
  "data URL in url: images.edit as b64_json and as url",
  serverTest,
  async () => {
    await using s = await dataUrlSetup();
    for (const format of ["b64_json", "url"] as const) {
      const edited = await s.client.images.edit({
        model: IMAGE_MODEL,
        image: await toFile(squarePngWithTransparency(32), "sky.png", { type: "image/png" }),
        prompt: "add a kite",
        response_format: format,
      });
      const item = edited.data![0];
      if (format === "b64_json") assertOk(served(s, Uint8Array.fromBase64(item.b64_json!)));
      else await assertHosted(s, item.url!);
    }
    await s.gw.settle();
    await assertBilledAsSuccess(s, 2, 2);
  },
);

Deno.test(
  "data URL in url: an async task's result_url and image_urls are hosted links, settled once",
  serverTest,
  async () => {
    await using s = await dataUrlSetup({ GATEWAY_TASK_POLL_MS: "50" });
    for (const format of ["url", "b64_json"]) {
      const submitted = await postJson(s.gw, "/v1/images/generations", s.key, {
        prompt: "a kite",
        n: 2,
        response_format: format,
      }, { "x-gateway-async-task": "true" });
      const taskId = (await submitted.json()).data.task_id;
      const task = await waitForImageTask(s, taskId);
      assertEquals(task.status, "succeeded", JSON.stringify(task));
      const urls = task.image_urls as string[];
      assertEquals(urls.length, 2);
      assertEquals(task.result_url, urls[0]);
      for (const url of urls) await assertHosted(s, url);
    }
    await assertBilledAsSuccess(s, 4, 2);
  },
);

Deno.test(
  "data URL in url: @google/genai generateContent on an openai-images channel answers inlineData",
  serverTest,
  async () => {
    await using s = await dataUrlSetup();
    const ai = new GoogleGenAI({ apiKey: s.key, httpOptions: { baseUrl: s.gw.url } });
    const drawn = await ai.models.generateContent({
      model: IMAGE_MODEL,
      contents: "draw a green owl",
      config: { responseModalities: ["IMAGE"] },
    });
    const images = drawn.candidates![0].content!.parts!.filter((part) => part.inlineData?.data);
    assertEquals(images.length, 1);
    assertEquals(images[0].inlineData!.mimeType, "image/png");
    assertOk(
      served(s, Uint8Array.fromBase64(images[0].inlineData!.data!)),
      "inlineData bytes differ",
    );
    await s.gw.settle();
    await assertBilledAsSuccess(s, 1, 1);
  },
);
