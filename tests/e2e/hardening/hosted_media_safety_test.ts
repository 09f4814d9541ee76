/**
 * Hosted media is judged from its bytes: an upstream "image" that is really an HTML page or a
 * script-carrying SVG, labelled image/png, is never stored nor delivered. The request fails with
 * a 502 in its interface's envelope naming what the bytes are, and nothing is charged.
 */

import { assertNothingCharged } from "../../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { postJson, serverTest, type TestGateway } from "../../helpers/gateway.ts";
import { IMAGE_MODEL, type ImageSetup, setupImages } from "../../helpers/image_setup.ts";
import { squarePngWithTransparency } from "../../helpers/png_fixtures.ts";
import type { OpenAIImagesUpstreamOptions } from "../../upstream/openai_images.ts";

const OPENING = 10_000_000;

/** Media records and chunks in the gateway's KV. */
async function storedMedia(gw: TestGateway): Promise<number> {
  const { kv } = gw.running.gateway;
  let count = 0;
  for (const prefix of [["media"], ["media_chunk"]]) {
    for await (const _ of kv.list({ prefix })) count++;
  }
  return count;
}

/** The key's money moves (no credits): a refused image leaves at most a hold and its release. */
async function moneyMoves(s: ImageSetup): Promise<string[]> {
  return (await s.gw.ledger(s.keyId)).filter((entry) => entry.type !== "credit")
    .map((entry) => entry.type);
}

/** Asserts a 502 in the OpenAI envelope naming `seen` (and the upstream's image/png label). */
async function assertRefused(response: Response, seen: string) {
  const body = await response.json();
  assertEquals(response.status, 502, JSON.stringify(body));
  assertEquals(body.error.type, "api_error", JSON.stringify(body));
  assertEquals(body.error.code, "upstream_image_undeliverable");
  assertOk(body.error.message.includes(`is ${seen} (labelled image/png)`), body.error.message);
  assertEquals(response.headers.get("x-gateway-billed-images"), null);
}

/** [name, simulator options, client response_format, what the bytes are seen to be]. */
const OPENAI_CASES: Array<[string, OpenAIImagesUpstreamOptions, string, string]> = [
  ["b64_json answer of HTML, hosted as url", { payload: "html" }, "url", "text/html"],
  [
    "data URL answer of SVG, hosted as url",
    { answer: "data_url", payload: "svg" },
    "url",
    "image/svg+xml",
  ],
  [
    "data URL answer of HTML, asked as b64_json",
    { answer: "data_url", payload: "html" },
    "b64_json",
    "text/html",
  ],
  [
    "URL answer of HTML, fetched for b64_json",
    { answer: "url", payload: "html" },
    "b64_json",
    "text/html",
  ],
  [
    "URL answer of SVG, fetched for b64_json",
    { answer: "url", payload: "svg" },
    "b64_json",
    "image/svg+xml",
  ],
];

for (const [name, openai, format, seen] of OPENAI_CASES) {
  Deno.test(
    `hosted media: openai-images ${name}: 502 naming ${seen}, nothing stored, hold released`,
    serverTest,
    async () => {
      await using s = await setupImages("openai-images", { openai });
      const response = await postJson(s.gw, "/v1/images/generations", s.key, {
        prompt: "a kite",
        n: 2,
        response_format: format,
      });
      await assertRefused(response, seen);
      await s.gw.settle();
      assertEquals(await storedMedia(s.gw), 0);
      assertEquals(await moneyMoves(s), ["hold", "release"]);
      await assertNothingCharged(s, OPENING);
    },
  );
}

Deno.test(
  "hosted media: an image edit on openai-images answered with HTML is a 502, not charged",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images", { openai: { payload: "html" } });
    const form = new FormData();
    form.append("prompt", "add a kite");
    form.append(
      "image",
      new Blob([squarePngWithTransparency(64) as Uint8Array<ArrayBuffer>], { type: "image/png" }),
      "sky.png",
    );
    await assertRefused(await postJson(s.gw, "/v1/images/edits", s.key, form), "text/html");
    await s.gw.settle();
    assertEquals(await storedMedia(s.gw), 0);
    await assertNothingCharged(s, OPENING);
  },
);

Deno.test(
  "hosted media: gemini inlineData of HTML labelled image/png is a 502 naming text/html, not charged",
  serverTest,
  async () => {
    await using s = await setupImages("gemini", { gemini: { payload: "html" } });
    const response = await postJson(s.gw, "/v1/images/generations", s.key, { prompt: "a kite" });
    await assertRefused(response, "text/html");
    await s.gw.settle();
    assertEquals(await storedMedia(s.gw), 0);
    assertEquals(await moneyMoves(s), ["hold", "release"]);
    await assertNothingCharged(s, OPENING);
  },
);

Deno.test(
  "hosted media: generateContent on openai-images answered with SVG is a 503 UNAVAILABLE in the Gemini envelope, not charged",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images", { openai: { payload: "svg" } });
    const response = await postJson(
      s.gw,
      `/v1beta/models/${IMAGE_MODEL}:generateContent`,
      null,
      {
        contents: [{ role: "user", parts: [{ text: "a kite" }] }],
        generationConfig: { responseModalities: ["IMAGE"] },
      },
      { "x-goog-api-key": s.key },
    );
    const body = await response.json();
    // The gateway's 502 is UNAVAILABLE, which google.rpc.Code sends as 503.
    assertEquals(response.status, 503, JSON.stringify(body));
    assertEquals(body.error.code, 503);
    assertEquals(body.error.details[0].reason, "UPSTREAM_UNAVAILABLE");
    assertEquals(body.error.status, "UNAVAILABLE");
    assertOk(
      body.error.message.includes(
        "bad_answer: the upstream's image is image/svg+xml (labelled image/png)",
      ),
      body.error.message,
    );
    await s.gw.settle();
    await assertNothingCharged(s, OPENING);
  },
);

Deno.test(
  "hosted media: an async image task answered with HTML fails, names text/html and is refunded",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images", {
      openai: { payload: "html" },
      env: { GATEWAY_TASK_POLL_MS: "50" },
    });
    const submitted = await postJson(s.gw, "/v1/images/generations", s.key, {
      prompt: "a kite",
    }, { "x-gateway-async-task": "true" });
    assertEquals(submitted.status, 200);
    const taskId = (await submitted.json()).data.task_id;
    let task: { status: string; fail_reason: string | null; image_urls: string[] | null };
    for (let i = 0;; i++) {
      const response = await fetch(`${s.gw.url}/v1/images/tasks/${taskId}`, {
        headers: { authorization: `Bearer ${s.key}` },
      });
      task = (await response.json()).data;
      if (task.status === "failed" || task.status === "succeeded") break;
      assertOk(i < 400, `task ${taskId} did not end`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assertEquals(task.status, "failed");
    assertEquals(task.image_urls, null);
    assertOk(task.fail_reason?.includes("is text/html (labelled image/png)"), task.fail_reason!);
    await s.gw.settle();
    assertEquals(await storedMedia(s.gw), 0);
    assertEquals(await moneyMoves(s), ["hold", "release"]);
    await assertNothingCharged(s, OPENING);
  },
);

Deno.test(
  "hosted media: real images are still hosted, typed from their bytes",
  serverTest,
  async () => {
    await using s = await setupImages("gemini");
    const response = await postJson(s.gw, "/v1/images/generations", s.key, { prompt: "a kite" });
    assertEquals(response.status, 200);
    const [{ url }] = (await response.json()).data;
    const hosted = await fetch(url);
    assertEquals(hosted.headers.get("content-type"), "image/png");
    assertEquals(await hosted.bytes(), [...s.gemini!.images.values()][0]);
  },
);
