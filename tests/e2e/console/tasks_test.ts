/**
 * The console's Tasks pages over HTTP: the operator's filtered list, a bad filter answered 400 as
 * a page, a task's result preview from hosted media, its hold, settle and refund with ledger entry
 * ids, and its request's receipt (reference seconds for video); a holder sees its own tasks only,
 * without channels; none of it charges anything.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { shownAmount } from "../../helpers/console_money.ts";
import { assertNothingCharged } from "../../helpers/assert_money.ts";
import { ADMIN_TOKEN, postJson, serverTest, type TestGateway } from "../../helpers/gateway.ts";
import { consoleClient } from "../../helpers/console_client.ts";
import { IMAGE_MODEL, setupImages } from "../../helpers/image_setup.ts";
import { setupVideo } from "../../helpers/video_setup.ts";
import { mediaFixtures } from "../../helpers/media_tools.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

async function finished(gw: TestGateway, id: string): Promise<Json> {
  for (let i = 0; i < 400; i++) {
    await gw.settle();
    const { body } = await gw.admin("GET", `/admin/tasks/${id}`);
    const done = body.status === "succeeded" || body.status === "failed";
    if (done && body.request_id) {
      const record = (await gw.admin("GET", `/admin/requests/${body.request_id}`)).body;
      if (!record.task_pending) return body;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`task ${id} did not finish`);
}

async function text(response: Promise<Response>): Promise<{ status: number; html: string }> {
  const answer = await response;
  return { status: answer.status, html: await answer.text() };
}

Deno.test(
  "console tasks: the operator filters image tasks and reads one's preview and billing; the holder its own",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images", { env: { GATEWAY_TASK_POLL_MS: "50" } });
    const submitted = await postJson(s.gw, "/v1/images/generations", s.key, {
      model: IMAGE_MODEL,
      prompt: "a kite",
      n: 2,
    }, { "x-gateway-async-task": "true" });
    const id = (await submitted.json()).data.task_id;
    const task = await finished(s.gw, id);
    assertEquals(task.status, "succeeded");
    const opening = await s.gw.balance(s.keyId);

    const client = consoleClient(s.gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
    const list = await text(client.get("/console/tasks"));
    assertEquals(list.status, 200);
    assertOk(list.html.includes(id), "listed");
    for (const query of ["?kind=image", "?status=succeeded", `?key=${s.keyId}`]) {
      assertOk((await text(client.get(`/console/tasks${query}`))).html.includes(id), query);
    }
    for (const query of ["?kind=video", "?status=failed", `?model=other`]) {
      assertOk(!(await text(client.get(`/console/tasks${query}`))).html.includes(id), query);
    }
    for (const query of ["?kind=audio", "?status=done", "?key=nobody", "?since=soon"]) {
      assertEquals((await text(client.get(`/console/tasks${query}`))).status, 400, query);
    }

    const detail = await text(client.get(`/console/tasks/${id}`));
    assertEquals(detail.status, 200);
    const previews = [...detail.html.matchAll(/<img class="preview" src="(\/media\/[^"]+)"/g)];
    assertEquals(previews.length, 2, "both images previewed from the gateway's own media");
    assertEquals((await client.get(previews[0][1])).status, 200);
    for (const entryId of task.billing.entry_ids) assertOk(detail.html.includes(entryId), entryId);
    assertOk(detail.html.includes(task.channel_id), "the operator sees the channel");
    assertOk(detail.html.includes(`/console/requests/${task.request_id}`), "the request");
    assertOk(
      detail.html.includes(`<dt>Refunded</dt><dd>${shownAmount(task.billing.refunded)}</dd>`),
      "the refund",
    );
    assertEquals((await text(client.get("/console/tasks/task_nothere"))).status, 404);

    const holder = consoleClient(s.gw.url);
    await (await holder.signIn(s.key)).body?.cancel();
    const own = await text(holder.get(`/console/tasks?key=key_someoneelse`));
    assertOk(own.html.includes(id) && !own.html.includes('id="key"'), "own list, no key filter");
    const ownDetail = await text(holder.get(`/console/tasks/${id}`));
    assertEquals(ownDetail.status, 200);
    assertOk(!ownDetail.html.includes(task.channel_id), "no channel for the holder");
    for (const entryId of task.billing.entry_ids) assertOk(ownDetail.html.includes(entryId));

    const stranger = await s.gw.createKey({ name: "stranger", balance: 1_000_000 });
    const strangerClient = consoleClient(s.gw.url);
    await (await strangerClient.signIn(stranger.key)).body?.cancel();
    assertOk(!(await text(strangerClient.get("/console/tasks"))).html.includes(id));
    assertEquals((await text(strangerClient.get(`/console/tasks/${id}`))).status, 404);
    await assertNothingCharged(s, opening);
  },
);

Deno.test(
  "console tasks: a video task's page shows billed seconds with its reference seconds",
  serverTest,
  async () => {
    await using s = await setupVideo();
    const fixtures = mediaFixtures();
    const response = await s.submit({ model: "vid-2", prompt: "dance like this", duration: "5" }, [
      { field: "video", bytes: fixtures.mp4_3s, filename: "moves.mp4" },
    ]);
    const id = (await response.json()).id;
    const task = await finished(s.gw, id);
    const record = (await s.gw.admin("GET", `/admin/requests/${task.request_id}`)).body;
    const client = consoleClient(s.gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
    const detail = await text(client.get(`/console/tasks/${id}`));
    assertEquals(detail.status, 200);
    const references = record.receipt.units.reference_seconds as number[];
    assertEquals(references.length, 1);
    assertOk(detail.html.includes(`reference_seconds: ${references[0]}`), "reference seconds");
    assertOk(detail.html.includes(`billed_seconds: ${record.receipt.units.billed_seconds}`));
    assertOk(detail.html.includes(record.receipt.formula), "the receipt's formula");
    // The simulated upstream serves the video itself: linked, never loaded from another origin.
    assertOk(!detail.html.includes("<video") && detail.html.includes("not hosted here"));
  },
);

Deno.test(
  "console tasks: a failed task shows its state and failure once, and no progress",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images", { env: { GATEWAY_TASK_POLL_MS: "50" } });
    s.openai!.fault = { kind: "status", status: 400, message: "Your prompt was rejected" };
    const submitted = await postJson(s.gw, "/v1/images/generations", s.key, {
      model: IMAGE_MODEL,
      prompt: "forbidden",
    }, { "x-gateway-async-task": "true" });
    const id = (await submitted.json()).data.task_id;
    const task = await finished(s.gw, id);
    assertEquals(task.status, "failed");
    const client = consoleClient(s.gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
    const detail = await text(client.get(`/console/tasks/${id}`));
    assertEquals(detail.status, 200);
    assertEquals(detail.html.split("Your prompt was rejected").length - 1, 1, "the failure once");
    assertOk(!detail.html.includes("<dt>Progress</dt>"), "no progress fact");
    assertOk(detail.html.includes("<dd>failed</dd>"), "the state");
    const list = await text(client.get("/console/tasks?status=failed"));
    const row = list.html.slice(list.html.indexOf(`/console/tasks/${id}`));
    assertOk(!row.slice(0, row.indexOf("</tr>")).includes("100%"), "no 100% in its row");
  },
);
