/**
 * The channel test on image and video channels, through the admin API and the console: one
 * minimal real call of the model's kind (an image: one 1024x1024 image; a video upstream: a call
 * that makes no task), its status and error shown in place, counted in the channel's health, and
 * never billed (no ledger entry, no request record, no task, the key's balance untouched).
 */

import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest, startTestGateway, type TestGateway } from "../helpers/gateway.ts";
import { consoleClient } from "../helpers/console_client.ts";
import { GEMINI_UPSTREAM_MODEL, IMAGE_MODEL, setupImages } from "../helpers/image_setup.ts";
import { ARK_MODEL, FAST_VIDEO_ENV, setupVideo } from "../helpers/video_setup.ts";

/** The entries of every key but credits, and the request log: both stay empty after tests. */
async function assertNothingRecorded(gw: TestGateway): Promise<void> {
  const ledger = (await gw.admin("GET", "/admin/ledger")).body.data;
  assertEquals(ledger.filter((entry: { type: string }) => entry.type !== "credit"), []);
  await gw.settle();
  assertEquals((await gw.admin("GET", "/admin/requests")).body.data, []);
  assertEquals((await gw.admin("GET", "/admin/tasks")).body.data, []);
}

/** Runs the console's Test of `model` on `channelId`; answers the page. */
async function consoleTest(gw: TestGateway, channelId: string, model: string): Promise<string> {
  const client = consoleClient(gw.url);
  await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
  const answer = await client.post(`/console/channels/${channelId}/test`, { model });
  assertEquals(answer.status, 200);
  return await answer.text();
}

for (const type of ["openai-images", "gemini"] as const) {
  Deno.test(
    `channel test: an image model on ${type} draws one 1024x1024 image upstream, billed nowhere, shown in the console`,
    serverTest,
    async () => {
      await using s = await setupImages(type);
      const channel = (await s.gw.admin("GET", "/admin/channels")).body.data[0];
      const path = `/admin/channels/${channel.id}/test`;

      const passed = await s.gw.admin("POST", path, { model: IMAGE_MODEL });
      assertEquals(passed.status, 200, JSON.stringify(passed.body));
      assertEquals(
        { ...passed.body, latency_ms: 0 },
        {
          ok: true,
          status: 200,
          latency_ms: 0,
          model: IMAGE_MODEL,
          channel_id: channel.id,
          call: type === "openai-images"
            ? "one 1024x1024 image, quality low (billed upstream, not by the gateway)"
            : "one 1024x1024 image (billed upstream, not by the gateway)",
        },
      );
      assertEquals(s.upstreamRequests(), 1);
      if (s.openai) {
        const sent = s.openai.requests[0];
        assertEquals(sent.path, "/v1/images/generations");
        assertEquals(
          [sent.body.model, sent.body.n, sent.body.size, sent.body.quality],
          ["gpt-image-sim", 1, "1024x1024", "low"],
        );
      } else {
        const sent = s.gemini!.requests[0];
        assertEquals([sent.model, sent.method], [GEMINI_UPSTREAM_MODEL, "generateContent"]);
        // deno-lint-ignore no-explicit-any
        const config = sent.body.generationConfig as any;
        assertEquals(config.responseModalities, ["IMAGE"]);
      }

      // An upstream failure is a 200 answer saying so, with the upstream's status.
      if (s.openai) s.openai.fault = { kind: "status", status: 500, message: "drawing broke" };
      if (s.gemini) s.gemini.fault = { kind: "status", status: 500, message: "drawing broke" };
      const failed = await s.gw.admin("POST", path, {});
      assertEquals(
        [failed.status, failed.body.ok, failed.body.status, failed.body.error_class],
        [200, false, 500, "http_500"],
        JSON.stringify(failed.body),
      );
      const page = await consoleTest(s.gw, channel.id, IMAGE_MODEL);
      assertOk(page.includes('role="status"') && page.includes(">failed<"), "failure in place");
      assertOk(page.includes("http_500") && page.includes("1024x1024"), "status and call shown");
      if (s.openai) s.openai.fault = undefined;
      if (s.gemini) s.gemini.fault = undefined;
      const again = await consoleTest(s.gw, channel.id, IMAGE_MODEL);
      assertOk(again.includes('role="status"') && again.includes(">ok<"), "success in place");
      assertOk(!again.includes("Channel tests are for text channels"));

      const health = (await s.gw.admin("GET", `/admin/channels/${channel.id}`)).body.health;
      assertEquals([health.requests, health.success_rate], [4, 0.5], JSON.stringify(health));
      await assertNothingCharged(s, 10_000_000, { untouched: true });
      await assertNothingRecorded(s.gw);
    },
  );
}

Deno.test(
  "channel test: an ark-video model lists one task of the model (no task made), a refused key fails, billed nowhere",
  serverTest,
  async () => {
    await using s = await setupVideo();
    const channel = (await s.gw.admin("GET", "/admin/channels")).body.data[0];
    const passed = await s.gw.admin("POST", `/admin/channels/${channel.id}/test`, {
      model: "vid-2",
    });
    assertEquals(
      { ...passed.body, latency_ms: 0 },
      {
        ok: true,
        status: 200,
        latency_ms: 0,
        model: "vid-2",
        channel_id: channel.id,
        call: "list tasks of the model, page size 1 (no task made)",
      },
      JSON.stringify(passed.body),
    );
    assertEquals(s.ark.creates, 0);
    assertEquals(s.ark.listQueries.map((query) => Object.fromEntries(query)), [
      { page_num: "1", page_size: "1", "filter.model": ARK_MODEL },
    ]);

    // A key the upstream refuses: the test fails with its 401.
    const wrong = await s.gw.addChannel({
      name: "ark, wrong key",
      type: "ark-video",
      base_url: s.ark.baseUrl,
      keys: ["ark-wrong-key"],
      models: ["vid-2"],
    });
    const refused = await s.gw.admin("POST", `/admin/channels/${wrong.id}/test`, {});
    assertEquals(
      [refused.status, refused.body.ok, refused.body.status, refused.body.error_class],
      [200, false, 401, "http_401"],
      JSON.stringify(refused.body),
    );
    assertOk(!JSON.stringify(refused.body).includes("ark-wrong-key"));
    // A base URL that is not Ark's task API: a 200 that is no task list still fails.
    const elsewhere = await s.gw.addChannel({
      name: "not ark",
      type: "ark-video",
      base_url: `${s.ark.origin}/files`,
      keys: ["ark-upstream-test"],
      models: ["vid-2"],
    });
    const notArk = await s.gw.admin("POST", `/admin/channels/${elsewhere.id}/test`, {});
    assertEquals(
      [notArk.body.ok, notArk.body.status, notArk.body.error_class],
      [false, 200, "bad_answer"],
      JSON.stringify(notArk.body),
    );

    const page = await consoleTest(s.gw, channel.id, "vid-2");
    assertOk(page.includes('role="status"') && page.includes(">ok<"), "success in place");
    assertOk(page.includes("no task made"), "the call is named");
    assertEquals(s.ark.creates, 0);

    const health = (await s.gw.admin("GET", `/admin/channels/${channel.id}`)).body.health;
    assertEquals([health.requests, health.success_rate], [2, 1]);
    await assertNothingCharged(s, 100_000_000, { untouched: true });
    await assertNothingRecorded(s.gw);
  },
);

Deno.test(
  "channel test: a gateway-video model is read on the other gateway (no task made), an unknown one fails",
  serverTest,
  async () => {
    await using s = await setupVideo();
    await using front = await startTestGateway(FAST_VIDEO_ENV);
    await front.putModel("vid-2", { kind: "video", price: { per_second: 100_000 } });
    await front.putModel("vid-x", { kind: "video", price: { per_second: 100_000 } });
    const channel = await front.addChannel({
      name: "next gateway",
      type: "gateway-video",
      base_url: `${s.gw.url}/v1`,
      keys: [s.key],
      models: ["vid-2", "vid-x"],
      model_map: { "vid-x": "vid-unknown" },
    });
    const path = `/admin/channels/${channel.id}/test`;
    const passed = await front.admin("POST", path, { model: "vid-2" });
    assertEquals(
      [passed.body.ok, passed.body.status, passed.body.call],
      [true, 200, "read the model on the other gateway (no task made)"],
      JSON.stringify(passed.body),
    );
    const unknown = await front.admin("POST", path, { model: "vid-x" });
    assertEquals(
      [unknown.body.ok, unknown.body.status, unknown.body.error_class],
      [false, 404, "http_404"],
      JSON.stringify(unknown.body),
    );
    assertOk(unknown.body.error.includes("vid-unknown"), unknown.body.error);

    const page = await consoleTest(front, channel.id, "vid-2");
    assertOk(page.includes('role="status"') && page.includes(">ok<"), "success in place");

    // No task on either gateway, nothing billed on the other gateway's key.
    assertEquals(s.ark.creates, 0);
    await assertNothingCharged(s, 100_000_000, { untouched: true });
    assertEquals((await s.gw.admin("GET", "/admin/tasks")).body.data, []);
    await assertNothingRecorded(front);
    const health = (await front.admin("GET", `/admin/channels/${channel.id}`)).body.health;
    assertEquals([health.requests, health.success_rate], [3, 0.6667]);
  },
);
