/** TaskStore.end moves a task's money exactly once, whoever calls it and however often. */

import { assertEquals } from "../../helpers/assert.ts";
import { serverTest, startTestGateway } from "../../helpers/gateway.ts";
import { type TaskRecord, writeTask } from "../../../core/tasks/task_record.ts";
import { kvKeys } from "../../../core/kv/kv_keys.ts";

function leasedTask(keyId: string, workerId: string, walletId: string): TaskRecord {
  return {
    id: "task_lifecycle_test",
    kind: "video",
    action: "generations",
    owner: `key:${keyId}`,
    key_id: keyId,
    wallet_id: walletId,
    model: "vid-2",
    status: "in_progress",
    progress: "50%",
    submit_time: 0,
    start_time: 0,
    finish_time: null,
    attempts: 1,
    held: 700,
    cost: null,
    fail_reason: null,
    channel_id: null,
    result_url: null,
    image_urls: null,
    // Far in the future, so the gateway's own worker leaves it alone.
    next_check_at: Date.now() + 3_600_000,
    lease_owner: workerId,
    lease_until: Date.now() + 3_600_000,
    input: {},
  };
}

Deno.test(
  "TaskStore.end: a repeated or concurrent end refunds once; a worker without the lease writes nothing",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const gateway = gw.running.gateway;
    const { id: keyId } = await gw.createKey({ balance: 1000 });
    const key = (await gateway.keys.get(keyId))!;
    const task = leasedTask(keyId, "wrk_a", key.wallet_id!);
    await gateway.ledger.hold(key.wallet_id!, {
      keyId,
      limit: key,
      ref: task.id,
      amount: task.held,
      alsoWrite: (atomic) => void writeTask(atomic, { previous: null, next: task }),
    });
    const failed = { status: "failed" as const, fail_reason: "test" };
    assertEquals(
      await gateway.tasks.end(task, {
        workerId: "wrk_b",
        update: failed,
        money: { release: "x" },
      }),
      false,
    );
    const results = await Promise.all([
      gateway.tasks.end(task, { workerId: "wrk_a", update: failed, money: { release: "first" } }),
      gateway.tasks.end(task, {
        workerId: "wrk_a",
        update: failed,
        money: { release: "second" },
      }),
      gateway.tasks.end(task, {
        workerId: "wrk_a",
        update: { status: "succeeded" },
        money: { cost: 700 },
      }),
    ]);
    assertEquals(results.filter(Boolean).length, 1);
    const types = (await gw.ledger(keyId)).map((entry) => entry.type);
    assertEquals(types.length, 3);
    assertEquals(types[0], "credit");
    assertEquals(types[1], "hold");
    const stored = (await gateway.kv.get<TaskRecord>(kvKeys.task(task.id))).value!;
    assertEquals(stored.lease_owner, null);
    assertEquals(await gw.assertLedgerInvariant(keyId), types[2] === "release" ? 1000 : 300);
    assertEquals(
      await gateway.tasks.end(task, {
        workerId: "wrk_a",
        update: failed,
        money: { release: "late" },
      }),
      false,
    );
    assertEquals((await gw.ledger(keyId)).length, 3);
  },
);
