/**
 * Image models on `bedrock` channels end to end: the real gateway, the Bedrock simulator
 * (tests/upstream/bedrock.ts and bedrock_images.ts, which check every signature, body, size and
 * count and draw real PNGs of the asked size) and the official openai SDK's `images.generate`:
 * Nova Canvas as b64_json and url, n=2 in one call and n=7 in two, a premium quality priced by
 * its tier; Titan signed with a Bedrock API key; Stable Diffusion 3.5 Large one image a call, its
 * content filter a 400 with nothing charged; an async task; the channel's Test button; a
 * size the model cannot make, an over-long prompt and an edit a 400 in OpenAI's envelope with
 * nothing sent or charged; the wallet against the receipts.
 */

import OpenAI, { toFile } from "openai";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { postJson, serverTest, startTestGateway } from "../helpers/gateway.ts";
import { walletMatchesReceipts } from "../helpers/wallet_receipts.ts";
import { solidRgbPng, squarePngWithTransparency } from "../helpers/png_fixtures.ts";
import { readPng } from "../../core/media/png.ts";
import {
  BEDROCK_TEST_ACCESS_KEY,
  BEDROCK_TEST_SECRET,
  startBedrockUpstream,
} from "../upstream/bedrock.ts";
import {
  BEDROCK_TEST_NOVA_CANVAS,
  BEDROCK_TEST_STABILITY,
  BEDROCK_TEST_TITAN_IMAGE,
  bedrockImageColor,
} from "../upstream/bedrock_images.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const START_BALANCE = 10_000_000;
const API_KEY = "ABSKbedrock-image-key-for-tests";
const PER_IMAGE = 40_000;
const PREMIUM = 90_000;
const PREMIUM_1344 = 70_000;
const PRICE = {
  per_image: PER_IMAGE,
  tiers: { "1024x1024/high": PREMIUM, "1344x768/high": PREMIUM_1344 },
};

async function setup() {
  await using stack = new AsyncDisposableStack();
  const bedrock = stack.use(startBedrockUpstream({ apiKeys: [API_KEY] }));
  const gw = stack.use(await startTestGateway({ GATEWAY_TASK_POLL_MS: "50" }));
  for (const model of ["canvas", "titan-image", "sd"]) {
    await gw.putModel(model, { kind: "image", price: PRICE });
  }
  await gw.addChannel({
    name: "bedrock-canvas",
    type: "bedrock",
    base_url: bedrock.endpoint,
    region: bedrock.region,
    keys: [`${BEDROCK_TEST_ACCESS_KEY}:${BEDROCK_TEST_SECRET}`],
    models: ["canvas"],
    model_map: { canvas: BEDROCK_TEST_NOVA_CANVAS },
  });
  await gw.addChannel({
    name: "bedrock-titan-image",
    type: "bedrock",
    base_url: bedrock.endpoint,
    bedrock_auth: "api-key",
    keys: [API_KEY],
    models: ["titan-image", "sd"],
    model_map: { "titan-image": BEDROCK_TEST_TITAN_IMAGE, sd: BEDROCK_TEST_STABILITY },
  });
  const { id, key } = await gw.createKey({ balance: START_BALANCE });
  const owned = stack.move();
  const close = () => owned.disposeAsync();
  return {
    bedrock,
    gw,
    keyId: id,
    key,
    startBalance: START_BALANCE,
    openai: new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 }),
    close,
    [Symbol.asyncDispose]: close,
  };
}

type Setup = Awaited<ReturnType<typeof setup>>;

/** The PNG's size. */
function pngOf(bytes: Uint8Array) {
  const { width, height } = readPng(bytes);
  return { width, height };
}

/** The image calls the simulator took for `modelId`. */
function imageCalls(s: Setup, modelId: string) {
  return s.bedrock.requests.filter((request) => request.modelId === modelId);
}

/** The simulator's base64 PNGs of one call (one colour an image, by its index). */
function expectedImages(
  modelId: string,
  { prompt, quality, count, width, height }: {
    prompt: string;
    quality: string;
    count: number;
    width: number;
    height: number;
  },
): string[] {
  return Array.from(
    { length: count },
    (_, index) =>
      solidRgbPng(width, height, bedrockImageColor(modelId, prompt, quality, index)).toBase64(),
  );
}

Deno.test(
  "bedrock images: the openai SDK on Nova Canvas (b64_json and url, n=2 in one signed call, n=7 in two, premium for high at its price) and Titan with an API key",
  serverTest,
  async () => {
    await using s = await setup();

    const { data: b64, response } = await s.openai.images.generate({
      model: "canvas",
      prompt: "a lighthouse at dusk",
      n: 2,
      size: "1536x1024",
      response_format: "b64_json",
      user: "someone",
    }).withResponse();
    assertEquals(b64.data!.length, 2);
    for (const item of b64.data!) {
      assertEquals(pngOf(Uint8Array.fromBase64(item.b64_json!)), { width: 1536, height: 1024 });
    }
    assertEquals(response.headers.get("x-gateway-billed-images"), "2");
    assertEquals(response.headers.get("x-gateway-ignored-fields"), "user");
    let calls = imageCalls(s, BEDROCK_TEST_NOVA_CANVAS);
    assertEquals(calls.length, 1);
    assertEquals(calls[0].auth, "sigv4");
    assertEquals(calls[0].refused, undefined);
    assertEquals(calls[0].body, {
      taskType: "TEXT_IMAGE",
      textToImageParams: { text: "a lighthouse at dusk" },
      imageGenerationConfig: { numberOfImages: 2, width: 1536, height: 1024, quality: "standard" },
    });
    // The simulator's images, in its order.
    assertEquals(
      b64.data!.map((item) => item.b64_json),
      expectedImages(BEDROCK_TEST_NOVA_CANVAS, {
        prompt: "a lighthouse at dusk",
        quality: "standard",
        count: 2,
        width: 1536,
        height: 1024,
      }),
    );

    const premium = await s.openai.images.generate({
      model: "canvas",
      prompt: "a premium lighthouse",
      quality: "high",
      size: "1024x1024",
      response_format: "url",
    }).withResponse();
    const url = premium.data.data![0].url!;
    assertOk(url.startsWith(`${s.gw.url}/media/`), url);
    const download = await fetch(url);
    assertEquals(download.headers.get("content-type"), "image/png");
    assertEquals(pngOf(new Uint8Array(await download.arrayBuffer())), {
      width: 1024,
      height: 1024,
    });
    assertEquals(premium.response.headers.get("x-gateway-cost-units"), String(PREMIUM));
    calls = imageCalls(s, BEDROCK_TEST_NOVA_CANVAS);
    assertEquals(calls.at(-1)!.body.imageGenerationConfig, {
      numberOfImages: 1,
      width: 1024,
      height: 1024,
      quality: "premium",
    });

    const seven = await s.openai.images.generate({
      model: "canvas",
      prompt: "seven kites",
      n: 7,
      size: "1024x1024",
      response_format: "b64_json",
    });
    assertEquals(seven.data!.length, 7);
    const split = imageCalls(s, BEDROCK_TEST_NOVA_CANVAS).slice(-2)
      .map((call) => call.body.imageGenerationConfig.numberOfImages).sort();
    assertEquals(split, [2, 5]);

    const titan = await s.openai.images.generate({
      model: "titan-image",
      prompt: "a red square",
      size: "1280x768" as "1024x1024",
      response_format: "b64_json",
    }).withResponse();
    assertEquals(pngOf(Uint8Array.fromBase64(titan.data.data![0].b64_json!)), {
      width: 1280,
      height: 768,
    });
    const titanCall = imageCalls(s, BEDROCK_TEST_TITAN_IMAGE).at(-1)!;
    assertEquals([titanCall.auth, titanCall.refused], ["api-key", undefined]);

    const records = await walletMatchesReceipts(s);
    assertEquals(records.map((record) => record.receipt.charged), [
      2 * PER_IMAGE,
      PREMIUM,
      7 * PER_IMAGE,
      PER_IMAGE,
    ]);
  },
);

Deno.test(
  "bedrock images: SD3.5 Large draws n=2 in two calls at the aspect ratio of the size, quality named as ignored; its content filter is a 400, nothing charged",
  serverTest,
  async () => {
    await using s = await setup();
    const { data, response } = await s.openai.images.generate({
      model: "sd",
      prompt: "a harbour",
      n: 2,
      size: "1344x768" as "1024x1024",
      quality: "high",
      response_format: "b64_json",
    }).withResponse();
    assertEquals(data.data!.length, 2);
    for (const item of data.data!) {
      assertEquals(pngOf(Uint8Array.fromBase64(item.b64_json!)), { width: 1344, height: 768 });
    }
    assertEquals(response.headers.get("x-gateway-ignored-fields"), "quality");
    const calls = imageCalls(s, BEDROCK_TEST_STABILITY);
    assertEquals(calls.map((call) => [call.auth, call.refused, call.body]), [
      ["api-key", undefined, { prompt: "a harbour", aspect_ratio: "16:9", output_format: "png" }],
      ["api-key", undefined, { prompt: "a harbour", aspect_ratio: "16:9", output_format: "png" }],
    ]);

    const filtered = await s.openai.images.generate({ model: "sd", prompt: "FILTERED harbour" })
      .then(() => undefined, (error) => error);
    assertOk(filtered instanceof OpenAI.APIError, String(filtered));
    assertEquals(filtered.status, 400);
    assertOk(String(filtered.message).includes("Filter reason: prompt"), filtered.message);

    const records = await walletMatchesReceipts(s);
    assertEquals(records.map((record) => record.receipt?.charged ?? 0), [2 * PREMIUM_1344, 0]);
  },
);

Deno.test(
  "bedrock images: an async task on Nova Canvas is drawn, hosted and settled once",
  serverTest,
  async () => {
    await using s = await setup();
    const submitted = await postJson(s.gw, "/v1/images/generations", s.key, {
      model: "canvas",
      prompt: "a kite",
      n: 2,
      response_format: "url",
    }, { "x-gateway-async-task": "true" });
    assertEquals(submitted.status, 200);
    const taskId = (await submitted.json()).data.task_id;
    let task: Json;
    for (let i = 0; i < 400; i++) {
      const polled = await fetch(`${s.gw.url}/v1/images/tasks/${taskId}`, {
        headers: { authorization: `Bearer ${s.key}` },
      });
      task = (await polled.json()).data;
      if (task?.status === "succeeded" || task?.status === "failed") break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assertEquals(task.status, "succeeded", JSON.stringify(task));
    assertEquals(task.image_urls.length, 2);
    for (const url of task.image_urls) {
      const download = await fetch(url);
      assertEquals(pngOf(new Uint8Array(await download.arrayBuffer())), {
        width: 1024,
        height: 1024,
      });
    }
    assertEquals(imageCalls(s, BEDROCK_TEST_NOVA_CANVAS).length, 1);
    await s.gw.settle();
    assertEquals(await s.gw.assertLedgerInvariant(s.keyId), START_BALANCE - 2 * PER_IMAGE);
    const entries = await s.gw.ledger(s.keyId);
    assertEquals(entries.filter((entry) => entry.type === "settle").length, 1);
  },
);

Deno.test(
  "bedrock images: the channel's Test button draws one 1024x1024 image on Nova Canvas, Titan and SD3.5 Large",
  serverTest,
  async () => {
    await using s = await setup();
    const channels: Json[] = (await s.gw.admin("GET", "/admin/channels")).body.data;
    for (
      const [model, modelId] of [
        ["canvas", BEDROCK_TEST_NOVA_CANVAS],
        ["titan-image", BEDROCK_TEST_TITAN_IMAGE],
      ]
    ) {
      const channel = channels.find((entry) => entry.models.includes(model));
      const tested = await s.gw.admin("POST", `/admin/channels/${channel.id}/test`, { model });
      assertEquals(tested.status, 200, JSON.stringify(tested.body));
      assertEquals(tested.body.ok, true, JSON.stringify(tested.body));
      assertEquals(
        tested.body.call,
        "one 1024x1024 image (billed upstream, not by the gateway)",
      );
      const calls = imageCalls(s, modelId);
      assertEquals(calls.length, 1);
      assertEquals(calls[0].refused, undefined);
    }
    const records = await walletMatchesReceipts(s);
    assertEquals(records.length, 0);
  },
);

Deno.test(
  "bedrock images: a size the model cannot make, an over-long prompt and an edit are 400s in OpenAI's envelope naming the field, nothing sent or charged",
  serverTest,
  async () => {
    await using s = await setup();
    const refused = async (request: Promise<unknown>, param: string) => {
      try {
        await request;
      } catch (error) {
        assertOk(error instanceof OpenAI.APIError, String(error));
        assertEquals(error.status, 400);
        assertEquals((error.error as Json).param, param, JSON.stringify(error.error));
        assertEquals((error.error as Json).type, "invalid_request_error");
        return (error.error as Json).message as string;
      }
      throw new Error("not refused");
    };
    const tooLarge = await refused(
      s.openai.images.generate({
        model: "canvas",
        prompt: "x",
        size: "3840x2160" as "1024x1024",
        n: 1,
      }),
      "size",
    );
    assertOk(tooLarge.includes("3840x2160"), tooLarge);
    await refused(
      s.openai.images.generate({ model: "titan-image", prompt: "x", size: "1536x1024" }),
      "size",
    );
    await refused(
      s.openai.images.generate({ model: "titan-image", prompt: "x".repeat(513) }),
      "prompt",
    );
    await refused(
      s.openai.images.edit({
        model: "canvas",
        prompt: "fill it",
        image: await toFile(squarePngWithTransparency(64), "source.png", { type: "image/png" }),
      }),
      "model",
    );
    const asTask = await postJson(s.gw, "/v1/images/generations", s.key, {
      model: "canvas",
      prompt: "x",
      size: "3840x2160",
    }, { "x-gateway-async-task": "true" });
    assertEquals(asTask.status, 400);
    assertEquals((await asTask.json()).error.param, "size");
    assertEquals(s.bedrock.requests.length, 0);
    await s.gw.settle();
    assertEquals(await s.gw.assertLedgerInvariant(s.keyId), START_BALANCE);
    await walletMatchesReceipts(s);
  },
);
