/**
 * An upstream result URL that is not http(s) is refused, never stored or linked: images (an
 * openai-images `url` answer, sync, as a task and through generateContent) and video
 * (`ark-video`, `gateway-video`). The request fails like an upstream failure: not charged, or
 * refunded. A `data:` URL of an image is the image itself, judged by its bytes and hosted.
 */

import { assertNothingCharged } from "../../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { postJson, serverTest, startTestGateway } from "../../helpers/gateway.ts";
import { IMAGE_MODEL, setupImages } from "../../helpers/image_setup.ts";
import { solidPng } from "../../helpers/png_fixtures.ts";
import {
  FAST_VIDEO_ENV,
  moneyMoves,
  PER_SECOND,
  setupVideo,
  videoClient,
} from "../../helpers/video_setup.ts";
import { startHostileUpstream } from "../../upstream/hostile.ts";

const HOSTILE_URLS = [
  "javascript:alert(document.cookie)",
  "JavaScript:fetch('//evil.example')",
  `data:text/html;base64,${(new TextEncoder().encode("<script>alert(1)</script>")).toBase64()}`,
  "data:text/html,<script>alert(1)</script>",
  "vbscript:msgbox(1)",
  "file:///etc/passwd",
];

const FIVE_SECONDS = 5 * PER_SECOND;

Deno.test(
  "images: a non-http(s) upstream url is a 502, nothing linked, nothing charged (sync, b64_json, generateContent)",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images", { openai: { answer: "url" } });
    for (const url of HOSTILE_URLS) {
      s.openai!.options.resultUrl = url;
      for (const format of ["url", "b64_json"]) {
        const response = await postJson(s.gw, "/v1/images/generations", s.key, {
          prompt: "a kite",
          response_format: format,
        });
        const text = await response.text();
        assertEquals(response.status, 502, `${url} as ${format}: ${text}`);
        assertEquals(JSON.parse(text).error.code, "upstream_image_undeliverable");
        assertOk(!text.includes("alert") && !text.includes("evil"), text);
      }
      const gemini = await postJson(
        s.gw,
        `/v1beta/models/${IMAGE_MODEL}:generateContent`,
        null,
        {
          contents: [{ role: "user", parts: [{ text: "a kite" }] }],
          generationConfig: { responseModalities: ["IMAGE"] },
        },
        { "x-goog-api-key": s.key },
      );
      assertEquals(gemini.status, 503, url); // UNAVAILABLE, as google.rpc.Code sends it
      assertEquals((await gemini.json()).error.status, "UNAVAILABLE");
    }
    await assertNothingCharged(s, 10_000_000);
  },
);

Deno.test(
  "images: a data: URL of a real image in `url` is decoded, judged and hosted, and billed",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images", {
      openai: {
        resultUrl: `data:image/png;base64,${(solidPng(8, 8, [1, 2, 3, 255])).toBase64()}`,
      },
    });
    const response = await postJson(s.gw, "/v1/images/generations", s.key, { prompt: "a kite" });
    const body = await response.json();
    assertEquals(response.status, 200, JSON.stringify(body));
    assertOk(body.data[0].url.startsWith(`${s.gw.url}/media/`), body.data[0].url);
    assertEquals(await s.gw.assertLedgerInvariant(s.keyId), 10_000_000 - 40_000);
  },
);

Deno.test(
  "image tasks: a non-http(s) upstream url fails the task, refunded, no link stored",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images", {
      openai: { resultUrl: "javascript:alert(1)" },
      env: { GATEWAY_TASK_POLL_MS: "50" },
    });
    const submitted = await postJson(s.gw, "/v1/images/generations", s.key, { prompt: "a kite" }, {
      "x-gateway-async-task": "true",
    });
    const id = (await submitted.json()).data.task_id;
    let task: Record<string, unknown> = {};
    for (let i = 0; i < 600 && task.status !== "failed" && task.status !== "succeeded"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const answer = await fetch(`${s.gw.url}/v1/images/tasks/${id}`, {
        headers: { authorization: `Bearer ${s.key}` },
      });
      task = (await answer.json()).data;
    }
    assertEquals(task.status, "failed", JSON.stringify(task));
    assertEquals([task.result_url, task.image_urls], [null, null]);
    assertOk(String(task.fail_reason).includes("not http(s)"), String(task.fail_reason));
    await assertNothingCharged(s, 10_000_000);
  },
);

Deno.test(
  "video (ark-video): a non-http(s) result URL fails the task, refunded, never stored",
  serverTest,
  async () => {
    await using s = await setupVideo();
    for (const url of HOSTILE_URLS) {
      s.ark.options.resultUrl = url;
      const submitted = await s.submit({ model: "vid-2", prompt: "a kite" });
      const { id } = await submitted.json();
      const task = await s.waitForTask(id);
      assertEquals(task.status, "FAILURE", url);
      assertEquals([task.result_url, task.data.video_url], [null, null], url);
      assertOk(task.fail_reason?.includes("not http(s)"), task.fail_reason!);
      assertOk(!JSON.stringify(task).includes("alert"), JSON.stringify(task));
    }
    const moves = await moneyMoves(s);
    assertEquals(moves.length, 2 * HOSTILE_URLS.length);
    assertOk(moves.every(([type, amount]) =>
      (type === "hold" && amount === -FIVE_SECONDS) ||
      (type === "release" && amount === FIVE_SECONDS)
    ));
    await assertNothingCharged(s, 100_000_000);
  },
);

Deno.test(
  "video (gateway-video): a non-http(s) result URL from the next gateway fails the task, refunded",
  serverTest,
  async () => {
    await using upstream = startHostileUpstream({
      kind: "json",
      // One answer for both calls: the create reads `id`, the poll reads `data`.
      body: {
        id: "task_upstream",
        data: { status: "SUCCESS", result_url: "javascript:alert(1)", data: {} },
      },
    });
    await using front = await startTestGateway(FAST_VIDEO_ENV);
    await front.putModel("vid-2", { kind: "video", price: { per_second: PER_SECOND } });
    await front.addChannel({
      name: "next gateway",
      type: "gateway-video",
      base_url: upstream.baseUrl,
      keys: ["sk-next"],
      models: ["vid-2"],
    });
    const { id: keyId, key } = await front.createKey({ balance: 50_000_000 });
    const client = videoClient(front.url, key);
    const submitted = await client.submit({ model: "vid-2", prompt: "a kite" });
    const body = await submitted.json();
    assertEquals(submitted.status, 200, JSON.stringify(body));
    const task = await client.waitForTask(body.id);
    assertEquals(task.status, "FAILURE");
    assertEquals(task.result_url, null);
    assertOk(task.fail_reason?.includes("not http(s)"), task.fail_reason!);
    await assertNothingCharged({ gw: front, keyId }, 50_000_000);
  },
);
