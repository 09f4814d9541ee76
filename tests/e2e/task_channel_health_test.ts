/**
 * Channel health counts task work: the task worker's upstream attempts (video submissions, async
 * image generations) count as a request's attempts do, successes and failures, in the admin API's
 * channel view and on the console's channel pages.
 */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { ADMIN_TOKEN, postJson, serverTest, type TestGateway } from "../helpers/gateway.ts";
import { consoleClient } from "../helpers/console_client.ts";
import { IMAGE_MODEL, setupImages } from "../helpers/image_setup.ts";
import { setupVideo } from "../helpers/video_setup.ts";

// deno-lint-ignore no-explicit-any
async function onlyChannel(gw: TestGateway): Promise<any> {
  const channels = (await gw.admin("GET", "/admin/channels")).body.data;
  assertEquals(channels.length, 1);
  return channels[0];
}

/** The health line of the channel's console detail page and of the channel list. */
async function consoleHealth(gw: TestGateway, channelId: string): Promise<[string, string]> {
  const client = consoleClient(gw.url);
  await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
  const detail = await (await client.get(`/console/channels/${channelId}`)).text();
  const list = await (await client.get("/console/channels")).text();
  return [detail, list];
}

Deno.test(
  "task channel health: three video tasks and a failed submission count on the ark channel",
  serverTest,
  async () => {
    await using s = await setupVideo();
    const channel = await onlyChannel(s.gw);
    assertEquals(channel.health.requests, 0);
    // The first submission meets a 503 and is submitted again: four attempts, three passed.
    s.ark.faults.push({ on: "create", kind: "status", status: 503 });
    const ids: string[] = [];
    for (const prompt of ["one", "two", "three"]) {
      const response = await s.submit({ model: "vid-2", prompt });
      const body = await response.json();
      assertEquals(response.status, 200, JSON.stringify(body));
      ids.push(body.id);
    }
    for (const id of ids) assertEquals((await s.waitForTask(id)).status, "SUCCESS");
    assertEquals(s.ark.creates, 4);
    await s.gw.settle();

    const health = (await s.gw.admin("GET", `/admin/channels/${channel.id}`)).body.health;
    assertEquals(
      [health.requests, health.success_rate, health.last_error_class],
      [4, 0.75, "http_503"],
      JSON.stringify(health),
    );
    assertOk(typeof health.p50_latency_ms === "number", JSON.stringify(health));
    const listed = (await s.gw.admin("GET", "/admin/channels")).body.data[0].health;
    assertEquals(listed, health);

    const [detail, list] = await consoleHealth(s.gw, channel.id);
    for (const page of [detail, list]) {
      assertOk(page.includes("75.0% of 4"), "the console shows the task attempts");
      assertOk(!page.includes("no requests"), "the console says no requests");
    }
  },
);

for (const type of ["openai-images", "gemini"] as const) {
  Deno.test(
    `task channel health: async image tasks count on the ${type} channel, passed and refused`,
    serverTest,
    async () => {
      await using s = await setupImages(type, { env: { GATEWAY_TASK_POLL_MS: "50" } });
      const channel = await onlyChannel(s.gw);
      const taskOf = async () => {
        const response = await postJson(s.gw, "/v1/images/generations", s.key, {
          model: IMAGE_MODEL,
          prompt: "a lighthouse",
        }, { "x-gateway-async-task": "true" });
        const body = await response.json();
        assertEquals(response.status, 200, JSON.stringify(body));
        return body.data.task_id as string;
      };
      const finished = async (id: string) => {
        for (let i = 0; i < 400; i++) {
          const response = await fetch(`${s.gw.url}/v1/images/tasks/${id}`, {
            headers: { authorization: `Bearer ${s.key}` },
          });
          const status = (await response.json()).data?.status;
          if (status === "succeeded" || status === "failed") return status;
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        throw new Error(`task ${id} did not finish`);
      };
      assertEquals(await finished(await taskOf()), "succeeded");
      // The upstream refuses the next one (400): a failed attempt, the task failed.
      if (s.openai) s.openai.fault = { kind: "status", status: 400, message: "prompt refused" };
      if (s.gemini) s.gemini.fault = { kind: "status", status: 400, message: "prompt refused" };
      assertEquals(await finished(await taskOf()), "failed");
      await s.gw.settle();

      const health = (await s.gw.admin("GET", `/admin/channels/${channel.id}`)).body.health;
      assertEquals(
        [health.requests, health.success_rate, health.last_error_class],
        [2, 0.5, "http_400"],
        JSON.stringify(health),
      );
      const [detail] = await consoleHealth(s.gw, channel.id);
      assertOk(detail.includes("50.0% of 2"), "the console shows the task attempts");
    },
  );
}
