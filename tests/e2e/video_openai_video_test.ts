/**
 * `openai-video` channels (Sora): a task runs through the gateway's video API, the finished video
 * is fetched from the upstream's `/content` with the channel's key and hosted by the gateway,
 * billed per second once; failures are refunded once; what Sora cannot take is refused at
 * submission with nothing charged.
 */

import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import { solidPng } from "../helpers/png_fixtures.ts";
import { mediaFixtures } from "../helpers/media_tools.ts";
import { PER_SECOND } from "../helpers/video_setup.ts";
import {
  hostedBytes,
  moves,
  OPENING,
  requestRecord,
  setupSora,
} from "../helpers/hosted_video_setup.ts";
import { startWebhookReceiver } from "../helpers/webhook_receiver.ts";
import { startArkVideoUpstream } from "../upstream/ark_video.ts";
import { verified, WEBHOOK_TEST_ENV } from "../helpers/webhook_setup.ts";

async function submitted(response: Response): Promise<string> {
  const body = await response.json();
  assertEquals(response.status, 200, JSON.stringify(body));
  return body.id;
}

Deno.test(
  "openai-video: the finished video is hosted by the gateway, its bytes the upstream's, billed once",
  serverTest,
  async () => {
    await using s = await setupSora();
    const id = await submitted(
      await s.submit({ model: "vid-hosted", prompt: "a fox", duration: "8", ratio: "16:9" }),
    );
    const task = await s.waitForTask(id);
    assertEquals(task.status, "SUCCESS", task.fail_reason ?? "");
    const video = [...s.sora.videos.values()][0];
    assertEquals(video.fields, {
      model: "sora-2",
      prompt: "a fox",
      seconds: "8",
      size: "1280x720",
    });
    const url = task.result_url!;
    assertOk(url.startsWith(`${s.gw.url}/media/med_`), url);
    assertOk(url.endsWith(".mp4"), url);
    assertEquals(task.data.video_url, url);
    assertOk(!JSON.stringify(task).includes(s.sora.baseUrl), "the upstream's URL is never shown");
    assertEquals(await hostedBytes(url), video.bytes);
    assertEquals(s.sora.downloads, 1);
    assertEquals(await moves(s), [["hold", -8 * PER_SECOND], ["settle", 0]]);
    assertEquals(await s.gw.assertLedgerInvariant(s.keyId), OPENING - 8 * PER_SECOND);
  },
);

Deno.test(
  "openai-video: a reference image is sent as input_reference; 9:16 is 720x1280",
  serverTest,
  async () => {
    await using s = await setupSora();
    const png = solidPng(8, 8, [10, 20, 30, 255]);
    const id = await submitted(
      await s.submit({ model: "vid-hosted", prompt: "animate", duration: "4", ratio: "9:16" }, [
        { field: "image_1", bytes: png, filename: "first.png", type: "image/png" },
      ]),
    );
    assertEquals((await s.waitForTask(id)).status, "SUCCESS");
    const video = [...s.sora.videos.values()][0];
    assertEquals(video.fields.size, "720x1280");
    assertEquals(video.reference?.bytes, png);
    assertEquals(video.reference?.type, "image/png");
  },
);

Deno.test(
  "openai-video: an upstream failure is FAILURE, refunded in full once",
  serverTest,
  async () => {
    await using s = await setupSora({ upstream: { plan: () => ({ outcome: "failed" }) } });
    const id = await submitted(
      await s.submit({ model: "vid-hosted", prompt: "doomed", duration: "4" }),
    );
    const task = await s.waitForTask(id);
    assertEquals(task.status, "FAILURE");
    assertOk(task.fail_reason?.includes("moderation_blocked"), task.fail_reason!);
    assertEquals(task.result_url, null);
    assertEquals(s.sora.downloads, 0);
    assertEquals(await moves(s), [["hold", -4 * PER_SECOND], ["release", 4 * PER_SECOND]]);
    await assertNothingCharged(s, OPENING);
  },
);

Deno.test(
  "openai-video: what Sora cannot take is a 400 naming the field, nothing charged",
  serverTest,
  async () => {
    await using s = await setupSora();
    const fixtures = mediaFixtures();
    const png = solidPng(8, 8, [1, 2, 3, 255]);
    const cases: Array<[Record<string, string>, Parameters<typeof s.submit>[1], string]> = [
      [{ duration: "5" }, [], "duration"],
      [{ duration: "4", ratio: "4:3" }, [], "ratio"],
      [{ duration: "4" }, [{ field: "video", bytes: fixtures.mp4_3s, type: "video/mp4" }], "video"],
      [{ duration: "4" }, [
        { field: "image_1", bytes: png, type: "image/png" },
        { field: "image_2", bytes: png, type: "image/png" },
      ], "image_2"],
    ];
    for (const [fields, files, param] of cases) {
      const response = await s.submit({ model: "vid-hosted", prompt: "no", ...fields }, files);
      const body = await response.json();
      assertEquals(response.status, 400, JSON.stringify(body));
      assertEquals(body.error.param, param, JSON.stringify(body));
    }
    assertEquals(s.sora.creates, 0);
    await assertNothingCharged(s, OPENING, { untouched: true });
  },
);

Deno.test(
  "openai-video: the download needs the key; a failed download is tried again, stored and billed once",
  serverTest,
  async () => {
    await using s = await setupSora();
    // Without the key the simulator refuses the video, as Sora does.
    const id = await submitted(
      await s.submit({ model: "vid-hosted", prompt: "retry", duration: "4" }),
    );
    s.sora.faults.push({ on: "content", status: 500 }, { on: "content", status: 503 });
    const task = await s.waitForTask(id);
    assertEquals(task.status, "SUCCESS", task.fail_reason ?? "");
    assertEquals(s.sora.downloads, 1);
    assertEquals(s.sora.faults, []);
    const video = [...s.sora.videos.values()][0];
    assertEquals(await hostedBytes(task.result_url!), video.bytes);
    const bare = await fetch(`${s.sora.baseUrl}/videos/${video.id}/content`);
    await bare.body?.cancel();
    assertEquals(bare.status, 401);
    assertEquals(await moves(s), [["hold", -4 * PER_SECOND], ["settle", 0]]);
  },
);

Deno.test(
  "openai-video: a download that keeps failing fails the task at its timeout, refunded once",
  serverTest,
  async () => {
    await using s = await setupSora({ env: { GATEWAY_VIDEO_TIMEOUT_MINUTES: "0.02" } });
    for (let i = 0; i < 1000; i++) s.sora.faults.push({ on: "content", status: 500 });
    const id = await submitted(
      await s.submit({ model: "vid-hosted", prompt: "lost", duration: "4" }),
    );
    const task = await s.waitForTask(id);
    assertEquals(task.status, "FAILURE");
    assertOk(task.fail_reason?.startsWith("timed out"), task.fail_reason!);
    assertEquals(s.sora.downloads, 0);
    assertEquals(await moves(s), [["hold", -4 * PER_SECOND], ["release", 4 * PER_SECOND]]);
    await assertNothingCharged(s, OPENING);
  },
);

Deno.test(
  "openai-video: a request without duration asks Sora for its own default, 4 s, billed as 4 s",
  serverTest,
  async () => {
    await using s = await setupSora();
    const response = await s.submit({ model: "vid-hosted", prompt: "no length" });
    assertEquals(response.headers.get("x-gateway-billed-seconds"), "4");
    const id = await submitted(response);
    assertEquals((await s.waitForTask(id)).status, "SUCCESS");
    assertEquals([...s.sora.videos.values()][0].fields.seconds, "4");
    assertEquals(await moves(s), [["hold", -4 * PER_SECOND], ["settle", 0]]);
  },
);

Deno.test(
  "openai-video: the webhook links the hosted video; the receipts match the wallet",
  serverTest,
  async () => {
    await using receiver = startWebhookReceiver();
    await using s = await setupSora({ env: WEBHOOK_TEST_ENV });
    const created = await s.gw.admin("POST", "/admin/webhooks", {
      url: receiver.url,
      events: ["task.succeeded", "task.failed"],
    });
    const good = await s.submit({ model: "vid-hosted", prompt: "good", duration: "12" });
    const view = await s.waitForTask(await submitted(good));
    assertEquals(view.status, "SUCCESS");
    const [delivery] = await receiver.waitFor(1);
    const payload = verified(created.body.secret, delivery);
    assertEquals(payload.type, "task.succeeded");
    assertEquals(payload.data.result_url, view.result_url);
    assertEquals(payload.data.result_links.length, 1);
    assertEquals(payload.data.result_links[0].url, view.result_url);
    assertEquals(payload.data.result_links[0].hosted, true);
    assertOk(payload.data.result_links[0].expires_at, "a hosted link says when it expires");

    const settled = await requestRecord(s.gw, good.headers.get("x-request-id")!);
    assertEquals(settled.receipt.status, "settled");
    assertEquals(settled.receipt.amount, 12 * PER_SECOND);
    assertEquals(settled.receipt.units.output_seconds, 12);

    s.sora.faults.push({ on: "create", status: 400 });
    const bad = await s.submit({ model: "vid-hosted", prompt: "refused", duration: "4" });
    assertEquals((await s.waitForTask(await submitted(bad))).status, "FAILURE");
    const refunded = await requestRecord(s.gw, bad.headers.get("x-request-id")!);
    assertEquals(refunded.receipt.status, "refunded");
    assertEquals([refunded.receipt.held, refunded.receipt.amount], [4 * PER_SECOND, 0]);
    const wallet = await s.gw.assertLedgerInvariant(s.keyId);
    assertEquals(wallet, OPENING - settled.receipt.amount - refunded.receipt.amount);
    const [, failed] = await receiver.waitFor(2);
    assertEquals(verified(created.body.secret, failed).type, "task.failed");
  },
);

Deno.test(
  "openai-video beside ark-video: a request Sora cannot take runs on the Ark channel only",
  serverTest,
  async () => {
    await using s = await setupSora();
    await using ark = startArkVideoUpstream();
    await s.gw.addChannel({
      name: "ark",
      type: "ark-video",
      base_url: ark.baseUrl,
      keys: ["ark-upstream-test"],
      models: ["vid-hosted"],
    });
    const fixtures = mediaFixtures();
    for (let i = 0; i < 3; i++) {
      const id = await submitted(
        await s.submit({ model: "vid-hosted", prompt: "like this", duration: "5" }, [
          { field: "video", bytes: fixtures.mp4_3s, type: "video/mp4" },
        ]),
      );
      assertEquals((await s.waitForTask(id)).status, "SUCCESS");
    }
    assertEquals([ark.creates, s.sora.creates], [3, 0]);
  },
);
