/** Task statuses and progress only move forward: forwardOnly, and the task store applying it. */

import { assertEquals } from "../../helpers/assert.ts";
import { serverTest, startTestGateway } from "../../helpers/gateway.ts";
import { forwardOnly, type TaskRecord, writeTask } from "../../../core/tasks/task_record.ts";

Deno.test("forwardOnly: statuses go submitted → in_progress → ended, progress never drops", () => {
  const at = (status: TaskRecord["status"], progress: string) => ({ status, progress });
  assertEquals(
    forwardOnly(at("in_progress", "50%"), at("submitted", "20%")),
    at("in_progress", "50%"),
  );
  assertEquals(
    forwardOnly(at("submitted", "20%"), at("in_progress", "50%")),
    at("in_progress", "50%"),
  );
  assertEquals(
    forwardOnly(at("in_progress", "70%"), at("in_progress", "60%")),
    at("in_progress", "70%"),
  );
  assertEquals(
    forwardOnly(at("in_progress", "60%"), at("in_progress", "65.5%")),
    at("in_progress", "65.5%"),
  );
  assertEquals(forwardOnly(at("in_progress", "50%"), at("failed", "100%")), at("failed", "100%"));
  assertEquals(
    forwardOnly(at("succeeded", "100%"), at("in_progress", "50%")),
    at("succeeded", "100%"),
  );
  // A text without a percentage never takes the place of one; before any, it is shown.
  assertEquals(
    forwardOnly(at("in_progress", "50%"), at("in_progress", "rendering")),
    at("in_progress", "50%"),
  );
  assertEquals(
    forwardOnly(at("in_progress", ""), at("in_progress", "rendering")),
    at("in_progress", "rendering"),
  );
  const next = { ...at("in_progress", "50%"), extra: 1 };
  assertEquals(forwardOnly(at("submitted", "20%"), next) === next, true);
});

Deno.test(
  "TaskStore.reschedule: a status or progress that would go backwards is not written",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const gateway = gw.running.gateway;
    const task: TaskRecord = {
      id: "task_status_order_test",
      kind: "video",
      action: "generations",
      owner: "key:k",
      key_id: "k",
      model: "vid-2",
      status: "in_progress",
      progress: "50%",
      submit_time: 0,
      start_time: 0,
      finish_time: null,
      attempts: 1,
      held: 0,
      cost: null,
      fail_reason: null,
      channel_id: null,
      result_url: null,
      image_urls: null,
      next_check_at: Date.now() + 3_600_000,
      lease_owner: "wrk_a",
      lease_until: Date.now() + 3_600_000,
      input: {},
    };
    await writeTask(gateway.kv.atomic(), { previous: null, next: task }).commit();
    const step = async (update: Partial<TaskRecord>) => {
      await gateway.tasks.update(task.id, { workerId: "wrk_a", update });
      const stored = (await gateway.tasks.get(task.id))!;
      return `${stored.status} ${stored.progress}`;
    };
    assertEquals(await step({ status: "submitted", progress: "20%" }), "in_progress 50%");
    assertEquals(await step({ status: "in_progress", progress: "70%" }), "in_progress 70%");
    assertEquals(await step({ progress: "60%" }), "in_progress 70%");
    await gateway.tasks.reschedule(task.id, {
      workerId: "wrk_a",
      at: Date.now() + 3_600_000,
      update: { status: "submitted", progress: "20%" },
    });
    const stored = (await gateway.tasks.get(task.id))!;
    assertEquals([stored.status, stored.progress, stored.lease_owner], [
      "in_progress",
      "70%",
      null,
    ]);
  },
);
