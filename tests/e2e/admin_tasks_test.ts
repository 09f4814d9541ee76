/** Admin tasks end to end: list filters (kind, status, model, key) and a task's billing detail. */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { assertAdminError } from "../helpers/admin_error.ts";
import { postJson, serverTest } from "../helpers/gateway.ts";
import { IMAGE_MODEL, IMAGE_PRICE, setupImages } from "../helpers/image_setup.ts";
import { PER_SECOND, setupVideo } from "../helpers/video_setup.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

async function waitForAdminTask(
  gw: { admin(method: string, path: string): Promise<{ body: Json }> },
  id: string,
): Promise<Json> {
  for (let i = 0; i < 400; i++) {
    const { body } = await gw.admin("GET", `/admin/tasks/${id}`);
    if (body.status === "succeeded" || body.status === "failed") return body;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`task ${id} did not finish`);
}

/** The ids listed by an admin task list. */
async function listed(
  gw: { admin(method: string, path: string): Promise<{ status: number; body: Json }> },
  query: string,
) {
  const answer = await gw.admin("GET", `/admin/tasks${query}`);
  assertEquals(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.data.map((task: { id: string }) => task.id);
}

Deno.test(
  "admin tasks: an image task's detail shows held, settled and refunded with its ledger entry ids",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images", { env: { GATEWAY_TASK_POLL_MS: "50" } });
    const submitted = await postJson(s.gw, "/v1/images/generations", s.key, {
      model: IMAGE_MODEL,
      prompt: "a kite",
      n: 2,
    }, { "x-gateway-async-task": "true" });
    assertEquals(submitted.status, 200);
    const id = (await submitted.json()).data.task_id;
    const task = await waitForAdminTask(s.gw, id);
    assertEquals([task.kind, task.status], ["image", "succeeded"]);
    await s.gw.settle();

    const entries = (await s.gw.ledger(s.keyId)).filter((entry) => entry.ref === id) as Json[];
    assertEquals(entries.map((entry) => entry.type), ["hold", "settle"]);
    const { billing } = task;
    assertEquals(billing.entry_ids, entries.map((entry) => entry.id));
    assertEquals(billing.held, -entries[0].amount);
    assertEquals(billing.settled, 2 * IMAGE_PRICE.per_image);
    assertEquals(billing.settled, task.cost);
    assertEquals(billing.refunded, entries[1].amount);
    assertEquals(billing.held, billing.settled + billing.refunded);

    for (
      const query of [
        "",
        "?kind=image",
        "?status=succeeded",
        `?model=${IMAGE_MODEL}`,
        `?key=${s.keyId}`,
      ]
    ) {
      assertEquals(await listed(s.gw, query), [id], query);
    }
    const other = await s.gw.createKey({ balance: 1 });
    for (const query of ["?kind=video", "?status=failed", "?model=vid-2", `?key=${other.id}`]) {
      assertEquals(await listed(s.gw, query), [], query);
    }
  },
);

Deno.test(
  "admin tasks: a video task settles in full and a failed one is refunded in full, filtered by status",
  serverTest,
  async () => {
    await using s = await setupVideo({
      ark: {
        plan: (body) => ({
          outcome: JSON.stringify(body.content).includes("doomed") ? "failed" : "succeeded",
        }),
      },
    });
    const submit = async (prompt: string) => {
      const response = await s.submit({ model: "vid-2", prompt, duration: "5" });
      const body = await response.json();
      assertEquals(response.status, 200, JSON.stringify(body));
      return body.id as string;
    };
    const good = await submit("a kite");
    const bad = await submit("doomed");
    const done = await waitForAdminTask(s.gw, good);
    const failed = await waitForAdminTask(s.gw, bad);
    assertEquals([done.kind, done.status, failed.status], ["video", "succeeded", "failed"]);
    const five = 5 * PER_SECOND;
    assertEquals(
      [done.billing.held, done.billing.settled, done.billing.refunded],
      [five, five, 0],
    );
    assertEquals(
      [failed.billing.held, failed.billing.settled, failed.billing.refunded],
      [five, 0, five],
    );
    assertEquals(failed.billing.entries.map((entry: Json) => entry.type), ["hold", "release"]);
    assertEquals(await listed(s.gw, "?kind=video&status=failed"), [bad]);
    assertEquals(await listed(s.gw, "?kind=video&status=succeeded"), [good]);
    assertEquals(await listed(s.gw, "?kind=video&order=asc"), [good, bad]);
  },
);

Deno.test(
  "admin tasks: unknown ids are 404, bad filters 400",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images");
    assertAdminError(
      await s.gw.admin("GET", "/admin/tasks/task_nonexistent"),
      404,
      "task_not_found",
    );
    assertAdminError(await s.gw.admin("GET", "/admin/tasks/not-a-task"), 404, "task_not_found");
    for (const query of ["?kind=audio", "?status=done", "?key=not-a-key", "?limit=0"]) {
      const refused = await s.gw.admin("GET", `/admin/tasks${query}`);
      assertEquals(refused.status, 400, `${query}: ${JSON.stringify(refused.body)}`);
      assertOk(refused.body.error.message.length > 0);
    }
  },
);
