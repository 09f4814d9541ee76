/**
 * A variant name does not buy a larger image at a smaller price: every image model × every size
 * tier, on both image channel types, synchronous, as a task, as an edit and through
 * generateContent. A size above a `-1k/-2k/-4k` variant's tier is a 400 naming the size (or
 * `imageSize`), nothing held or sent; every other pair is served and billed at the model's price.
 */

import OpenAI, { toFile } from "openai";
import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { postJson, serverTest } from "../helpers/gateway.ts";
import { IMAGE_MODEL, type ImageChannelType, setupImages } from "../helpers/image_setup.ts";
import { squarePngWithTransparency } from "../helpers/png_fixtures.ts";

/** The spec's listed sizes by tier. */
const TIER_SIZES: Record<string, string[]> = {
  "1K": ["1024x1024", "1536x1024", "1024x1536"],
  "2K": ["2048x2048", "2048x1152"],
  "4K": ["3840x2160", "2160x3840"],
};
const TIERS = ["1K", "2K", "4K"];

/** Each model, its price per image here, and the largest tier it makes (null: every tier). */
const MODELS: Array<[string, number, string | null]> = [
  [IMAGE_MODEL, 40_000, null],
  ["gen-image-2-vip", 60_000, null],
  ["gen-image-2-official", 80_000, null],
  ["gen-image-2-1k", 40_000, "1K"],
  ["gen-image-2-2k", 80_000, "2K"],
  ["gen-image-2-4k", 160_000, "4K"],
];

/** An edit's answer through the SDK: its status and body, or the error's. */
interface EditAnswer {
  status: number;
  body: { data?: { task_id: string }; error?: { param: string } };
}

const allowed = (modelTier: string | null, tier: string) =>
  modelTier === null || TIERS.indexOf(tier) <= TIERS.indexOf(modelTier);

async function setupAllVariants(type: ImageChannelType) {
  const s = await setupImages(type, { env: { GATEWAY_TASK_POLL_MS: "50" } });
  await s.gw.addChannel({
    name: "variants",
    type,
    base_url: (s.openai ?? s.gemini)!.baseUrl,
    keys: [type === "gemini" ? "gemini-upstream-test" : "sk-upstream-test"],
    models: MODELS.map(([model]) => model).filter((model) =>
      model !== IMAGE_MODEL && model !== "gen-image-2-4k"
    ),
  });
  return s;
}

async function taskStatus(base: string, key: string, id: string): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const response = await fetch(`${base}/v1/images/tasks/${id}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const status = (await response.json()).data?.status;
    if (status === "succeeded" || status === "failed") return status;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`task ${id} did not finish`);
}

for (const type of ["openai-images", "gemini"] as ImageChannelType[]) {
  Deno.test(
    `image variants × size tiers on ${type}: a size above the variant's tier is a 400 naming size, no charge`,
    serverTest,
    async () => {
      await using s = await setupAllVariants(type);
      let balance = 10_000_000;
      for (const [model, price, modelTier] of MODELS) {
        for (const tier of TIERS) {
          for (const size of TIER_SIZES[tier]) {
            for (const task of [false, true]) {
              const label = `${model} ${size}${task ? " (task)" : ""}`;
              const sentBefore = s.upstreamRequests();
              const response = await postJson(
                s.gw,
                "/v1/images/generations",
                s.key,
                { model, prompt: "a kite", size },
                task ? { "x-gateway-async-task": "true" } : {},
              );
              const body = await response.json();
              if (!allowed(modelTier, tier)) {
                assertEquals(response.status, 400, label);
                assertEquals(body.error.code, "invalid_request", label);
                assertEquals(body.error.param, "size", label);
                assertOk(body.error.message.includes(`${model} makes ${modelTier} images`), label);
                assertOk(
                  body.error.message.includes(`use gen-image-2-${tier.toLowerCase()}`),
                  label,
                );
                assertEquals(s.upstreamRequests(), sentBefore, `${label}: nothing sent upstream`);
                assertEquals(await s.gw.assertLedgerInvariant(s.keyId), balance, label);
                continue;
              }
              assertEquals(response.status, 200, `${label}: ${JSON.stringify(body)}`);
              if (task) {
                assertEquals(await taskStatus(s.gw.url, s.key, body.data.task_id), "succeeded");
              } else {
                assertEquals(response.headers.get("x-gateway-cost-units"), String(price), label);
              }
              balance -= price;
              // A settle is written off the response path; the invariant read waits for it.
              for (let i = 0; i < 100; i++) {
                if (await s.gw.assertLedgerInvariant(s.keyId) === balance) break;
                await new Promise((resolve) => setTimeout(resolve, 20));
              }
              assertEquals(await s.gw.assertLedgerInvariant(s.keyId), balance, label);
              if (type === "gemini") {
                const sent = s.gemini!.requests.at(-1)!.body.generationConfig as {
                  imageConfig: { imageSize: string };
                };
                assertEquals(sent.imageConfig.imageSize, tier, `${label}: Gemini draws ${tier}`);
              } else {
                assertEquals(s.openai!.requests.at(-1)!.body.size, size, label);
              }
            }
          }
        }
      }
    },
  );

  Deno.test(
    `image variants through the openai SDK on ${type}: gen-image-2-1k with 3840x2160 is refused`,
    serverTest,
    async () => {
      await using s = await setupAllVariants(type);
      const client = new OpenAI({ apiKey: s.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
      const error = await client.images.generate({
        model: "gen-image-2-1k",
        prompt: "a kite",
        size: "3840x2160" as "1024x1024",
      }).catch((error) => error);
      assertOk(error instanceof OpenAI.BadRequestError, String(error));
      assertEquals(error.param, "size");
      assertEquals(
        error.message,
        "400 size '3840x2160' is a 4K size; gen-image-2-1k makes 1K images, at most 1536x1024 " +
          "(1,572,864 pixels); use gen-image-2-4k for 4K images",
      );
      assertEquals(s.upstreamRequests(), 0);
      await assertNothingCharged(s, 10_000_000, { untouched: true });
    },
  );

  Deno.test(
    `image edits × size tiers on ${type}: un-suffixed models edit at every tier; variants do not edit`,
    serverTest,
    async () => {
      await using s = await setupAllVariants(type);
      let balance = 10_000_000;
      for (const [model, price, modelTier] of MODELS) {
        for (const tier of TIERS) {
          for (const task of [false, true]) {
            const size = TIER_SIZES[tier][0];
            const label = `${model} ${size}${task ? " (task)" : ""}`;
            const client = new OpenAI({ apiKey: s.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
            const answer: EditAnswer = await client.images.edit(
              {
                model,
                prompt: "add a kite",
                size: size as "1024x1024",
                image: await toFile(squarePngWithTransparency(32), "sky.png", {
                  type: "image/png",
                }),
              },
              task ? { headers: { "x-gateway-async-task": "true" } } : {},
            ).then((data) => ({ status: 200, body: data as unknown as EditAnswer["body"] }))
              .catch((error) => ({ status: error.status, body: { error: error.error } }));
            const { status, body } = answer;
            if (modelTier !== null) {
              assertEquals(status, 400, label);
              assertEquals(body.error?.param, "model", label);
              continue;
            }
            assertEquals(status, 200, `${label}: ${JSON.stringify(body)}`);
            if (task) {
              assertEquals(await taskStatus(s.gw.url, s.key, body.data!.task_id), "succeeded");
            }
            balance -= price;
            for (let i = 0; i < 100; i++) {
              if (await s.gw.assertLedgerInvariant(s.keyId) === balance) break;
              await new Promise((resolve) => setTimeout(resolve, 20));
            }
            assertEquals(await s.gw.assertLedgerInvariant(s.keyId), balance, label);
          }
        }
      }
    },
  );

  Deno.test(
    `generateContent image variants × imageSize on ${type}: above the variant's tier is a 400 naming imageSize`,
    serverTest,
    async () => {
      await using s = await setupAllVariants(type);
      let balance = 10_000_000;
      for (const [model, price, modelTier] of MODELS) {
        for (const tier of TIERS) {
          for (const edit of [false, true]) {
            const label = `${model} imageSize ${tier}${edit ? " (edit)" : ""}`;
            const sentBefore = s.upstreamRequests();
            const parts: unknown[] = [{ text: "a kite" }];
            if (edit) {
              parts.push({
                inlineData: {
                  mimeType: "image/png",
                  data: (squarePngWithTransparency(32)).toBase64(),
                },
              });
            }
            const response = await postJson(
              s.gw,
              `/v1beta/models/${model}:generateContent`,
              null,
              {
                contents: [{ role: "user", parts }],
                generationConfig: {
                  responseModalities: ["IMAGE"],
                  imageConfig: { aspectRatio: "16:9", imageSize: tier },
                },
              },
              { "x-goog-api-key": s.key },
            );
            const body = await response.json();
            if (!allowed(modelTier, tier)) {
              assertEquals(response.status, 400, label);
              assertEquals(body.error.status, "INVALID_ARGUMENT", label);
              assertEquals(body.error.details[0].reason, "INVALID_REQUEST", label);
              assertOk(
                body.error.message.startsWith(`imageSize '${tier}' is a ${tier} size`),
                label,
              );
              assertEquals(s.upstreamRequests(), sentBefore, `${label}: nothing sent upstream`);
              assertEquals(await s.gw.assertLedgerInvariant(s.keyId), balance, label);
              continue;
            }
            assertEquals(response.status, 200, `${label}: ${JSON.stringify(body)}`);
            assertEquals(response.headers.get("x-gateway-cost-units"), String(price), label);
            balance -= price;
            for (let i = 0; i < 100; i++) {
              if (await s.gw.assertLedgerInvariant(s.keyId) === balance) break;
              await new Promise((resolve) => setTimeout(resolve, 20));
            }
            assertEquals(await s.gw.assertLedgerInvariant(s.keyId), balance, label);
            if (type === "openai-images") {
              const sizes = { "1K": "1536x1024", "2K": "2048x1152", "4K": "3840x2160" };
              const sent = s.openai!.requests.at(-1)!.body as Record<string, unknown>;
              assertEquals(sent.size, sizes[tier as keyof typeof sizes], label);
            }
          }
        }
      }
    },
  );

  Deno.test(
    `generateContent image variant without imageSize on ${type}: the upstream is asked for the variant's tier`,
    serverTest,
    async () => {
      await using s = await setupAllVariants(type);
      const sizes = { "1K": "1536x1024", "2K": "2048x1152", "4K": "3840x2160" };
      for (const [model, price, modelTier] of MODELS) {
        if (!modelTier) continue;
        const response = await postJson(
          s.gw,
          `/v1beta/models/${model}:generateContent`,
          null,
          {
            contents: [{ role: "user", parts: [{ text: "a kite" }] }],
            generationConfig: {
              responseModalities: ["IMAGE"],
              imageConfig: { aspectRatio: "16:9" },
            },
          },
          { "x-goog-api-key": s.key },
        );
        const body = await response.json();
        assertEquals(response.status, 200, `${model}: ${JSON.stringify(body)}`);
        assertEquals(response.headers.get("x-gateway-cost-units"), String(price), model);
        if (type === "gemini") {
          const sent = s.gemini!.requests.at(-1)!.body.generationConfig as {
            imageConfig: { aspectRatio: string; imageSize: string };
          };
          assertEquals(sent.imageConfig, { aspectRatio: "16:9", imageSize: modelTier }, model);
        } else {
          const size = sizes[modelTier as keyof typeof sizes];
          assertEquals(s.openai!.requests.at(-1)!.body.size, size, model);
        }
      }
    },
  );
}
