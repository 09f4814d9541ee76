import { toFile } from "openai";
import { generateImage } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { postJson, serverTest } from "../helpers/gateway.ts";
import { IMAGE_MODEL, type ImageChannelType, setupImages } from "../helpers/image_setup.ts";
import { maskPng, squarePngWithTransparency } from "../helpers/png_fixtures.ts";

const CHANNEL_TYPES: ImageChannelType[] = ["openai-images", "gemini"];

/** Bytes of every image the simulator behind `s` has served, for comparison. */
function servedImages(s: Awaited<ReturnType<typeof setupImages>>): Uint8Array[] {
  return [...(s.openai?.images.values() ?? s.gemini!.images.values())];
}

function hasBytes(list: Uint8Array[], bytes: Uint8Array): boolean {
  return list.some((item) => item.length === bytes.length && item.every((b, i) => b === bytes[i]));
}

for (const type of CHANNEL_TYPES) {
  Deno.test(
    `images.generate on ${type}: b64_json answer, exact bytes, billed per image`,
    serverTest,
    async () => {
      await using s = await setupImages(type);
      const answer = await s.client.images.generate({
        model: IMAGE_MODEL,
        prompt: "a red fox in snow",
        n: 2,
        size: "1024x1024",
        response_format: "b64_json",
      });
      assertEquals(answer.data?.length, 2);
      for (const item of answer.data!) {
        assertOk(hasBytes(servedImages(s), Uint8Array.fromBase64(item.b64_json!)), "bytes differ");
      }
      assertOk(typeof answer.created === "number");
      assertEquals(await s.gw.assertLedgerInvariant(s.keyId), 10_000_000 - 2 * 40_000);
      const types = (await s.gw.ledger(s.keyId)).map((entry) => entry.type);
      assertEquals(types, ["credit", "hold", "settle"]);
    },
  );

  Deno.test(
    `images.generate on ${type}: url answer is hosted and downloads the exact bytes`,
    serverTest,
    async () => {
      await using s = await setupImages(type);
      const answer = await s.client.images.generate({
        model: IMAGE_MODEL,
        prompt: "a lighthouse",
      });
      const url = answer.data![0].url!;
      assertOk(url.startsWith(`${s.gw.url}/media/med_`), url);
      const download = await fetch(url);
      assertEquals(download.headers.get("content-type"), "image/png");
      const bytes = new Uint8Array(await download.arrayBuffer());
      assertOk(hasBytes(servedImages(s), bytes), "hosted bytes differ from the upstream's");
      const ranged = await fetch(url, { headers: { range: "bytes=0-7" } });
      assertEquals(ranged.status, 206);
      assertEquals([...new Uint8Array(await ranged.arrayBuffer())], [...bytes.slice(0, 8)]);
      assertEquals((await fetch(url.replace(/med_\w{4}/, "med_zzzz"))).status, 404);
      const beyond = await fetch(url, { headers: { range: "bytes=99999999-" } });
      assertEquals(beyond.status, 416);
      await beyond.body?.cancel();
    },
  );

  Deno.test(
    `images.edit on ${type}: one image without mask, and two images with a mask`,
    serverTest,
    async () => {
      await using s = await setupImages(type);
      const image = squarePngWithTransparency(64);
      const one = await s.client.images.edit({
        model: IMAGE_MODEL,
        image: await toFile(image, "source.png", { type: "application/octet-stream" }),
        prompt: "fill the hole with a cat",
        response_format: "b64_json",
      });
      assertEquals(one.data?.length, 1);
      const two = await s.client.images.edit({
        model: IMAGE_MODEL,
        image: [
          await toFile(image, "a.png", { type: "image/png" }),
          await toFile(squarePngWithTransparency(64), "b.png", { type: "image/png" }),
        ],
        mask: await toFile(maskPng(64, 64), "mask.png", { type: "image/png" }),
        prompt: "merge them",
        n: 1,
      }).withResponse();
      assertEquals(two.data.data?.length, 1);
      if (type === "openai-images") {
        const recorded = s.openai!.requests.at(-1)!;
        assertEquals(recorded.files.map((file) => file.field), ["image[]", "image[]", "mask"]);
        assertEquals(recorded.body.prompt, "merge them");
        assertEquals(s.openai!.requests[0].files.map((file) => file.field), ["image"]);
        assertEquals(two.response.headers.get("x-gateway-ignored-fields"), null);
      } else {
        const body = s.gemini!.requests.at(-1)!.body as {
          contents: Array<{ parts: Array<{ text?: string; inlineData?: { data: string } }> }>;
        };
        const parts = body.contents[0].parts;
        assertEquals(parts[0].text, "merge them");
        assertEquals(parts.filter((part) => part.inlineData).length, 2);
        assertEquals(two.response.headers.get("x-gateway-ignored-fields"), "mask");
      }
      assertEquals(await s.gw.assertLedgerInvariant(s.keyId), 10_000_000 - 2 * 40_000);
    },
  );

  Deno.test(`AI SDK generateImage on ${type}`, serverTest, async () => {
    await using s = await setupImages(type);
    const provider = createOpenAI({ apiKey: s.key, baseURL: `${s.gw.url}/v1` });
    const result = await generateImage({
      model: provider.image(IMAGE_MODEL),
      prompt: "a blue bicycle",
      size: "1024x1024",
      maxRetries: 0,
    });
    assertEquals(result.images.length, 1);
    assertOk(hasBytes(servedImages(s), result.image.uint8Array), "AI SDK image bytes differ");
  });
}

Deno.test(
  "openai-images URL results: passed on as url, fetched from the channel host for b64_json",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images", {
      openai: { answer: "url", revisedPrompt: true },
    });
    const asUrl = await s.client.images.generate({ model: IMAGE_MODEL, prompt: "a kite" });
    assertOk(asUrl.data![0].url!.startsWith(s.openai!.origin), "the upstream URL is passed on");
    assertOk(typeof asUrl.data![0].revised_prompt === "string", "revised_prompt kept");
    const asB64 = await s.client.images.generate({
      model: IMAGE_MODEL,
      prompt: "a kite",
      response_format: "b64_json",
    });
    assertOk(hasBytes(servedImages(s), Uint8Array.fromBase64(asB64.data![0].b64_json!)));
    assertEquals(s.openai!.downloads.length, 1);
  },
);

Deno.test(
  "data-URL results are decoded; fewer images than n are billed as delivered",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images", {
      openai: { answer: "data_url", maxImagesPerRequest: 1 },
    });
    const response = await s.client.images.generate({
      model: IMAGE_MODEL,
      prompt: "three moons",
      n: 3,
      response_format: "b64_json",
    }).withResponse();
    assertEquals(response.data.data?.length, 1);
    assertOk(!response.data.data![0].b64_json!.startsWith("data:"));
    assertEquals(response.response.headers.get("x-gateway-billed-images"), "1");
    assertEquals(await s.gw.assertLedgerInvariant(s.keyId), 10_000_000 - 40_000);
  },
);

Deno.test(
  "price tiers: 1536x1024/high costs its tier price; response_format never sent upstream",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images");
    await s.client.images.generate({
      model: IMAGE_MODEL,
      prompt: "wide and sharp",
      size: "1536x1024",
      quality: "high",
      response_format: "b64_json",
    });
    assertEquals(await s.gw.assertLedgerInvariant(s.keyId), 10_000_000 - 90_000);
    const sent = s.openai!.requests[0].body;
    assertEquals(sent.response_format, undefined);
    assertEquals(sent.size, "1536x1024");
    assertEquals(sent.model, "gpt-image-sim");
  },
);

Deno.test(
  "gemini image request: IMAGE modality, aspect ratio and size class mapped",
  serverTest,
  async () => {
    await using s = await setupImages("gemini");
    await s.client.images.generate({ model: IMAGE_MODEL, prompt: "wide", size: "3840x2160" });
    await s.client.images.generate({ model: "gen-image-2-4k", prompt: "square" });
    const [first, second] = s.gemini!.requests.map((request) =>
      request.body.generationConfig as Record<string, unknown>
    );
    assertEquals(first.responseModalities, ["IMAGE"]);
    assertEquals(first.imageConfig, { aspectRatio: "16:9", imageSize: "4K" });
    assertEquals(second.imageConfig, { imageSize: "4K" });
  },
);

Deno.test(
  "upstream failures: every channel failing releases the hold; a blocked prompt is a 400",
  serverTest,
  async () => {
    await using s = await setupImages("gemini");
    s.gemini!.fault = { kind: "status", status: 503 };
    const failed = await postJson(s.gw, "/v1/images/generations", s.key, { prompt: "anything" });
    assertEquals(failed.status, 502);
    s.gemini!.fault = { kind: "blocked" };
    const blocked = await postJson(s.gw, "/v1/images/generations", s.key, { prompt: "anything" });
    assertEquals(blocked.status, 400);
    assertEquals((await blocked.json()).error.code, "content_policy_violation");
    await assertNothingCharged(s, 10_000_000);
    const types = (await s.gw.ledger(s.keyId)).map((entry) => entry.type);
    assertEquals(types, ["credit", "hold", "release", "hold", "release"]);
  },
);
