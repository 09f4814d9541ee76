/**
 * Moves a claimed task on: reschedule it, or end it with its money in the same commit. Every
 * write checks that this worker still holds the task's lease, so of two workers (a slow one
 * whose lease ran out, and the one that took over) only one can end the task, and the hold is
 * settled or released exactly once.
 */

import type { Gateway } from "./gateway.ts";
import { kvKeys } from "./kv_keys.ts";
import { withKvRetry } from "./kv_retry.ts";
import type { SpendingLimit } from "./ledger.ts";
import { isFinished, type TaskRecord, writeTask } from "./task_record.ts";

type TaskUpdate = Partial<Omit<TaskRecord, "id" | "owner" | "key_id" | "held">>;

/** Reads the task if `workerId` holds its lease and it is not finished. */
async function leasedTask(
  kv: Deno.Kv,
  taskId: string,
  workerId: string,
): Promise<Deno.KvEntry<TaskRecord> | null> {
  const entry = await kv.get<TaskRecord>(kvKeys.task(taskId));
  const task = entry.value;
  if (!task || isFinished(task) || task.lease_owner !== workerId) return null;
  return entry as Deno.KvEntry<TaskRecord>;
}

/** Applies `update` under the lease; false when the lease was lost. */
export function updateLeasedTask(
  gateway: Gateway,
  taskId: string,
  workerId: string,
  update: TaskUpdate,
): Promise<boolean> {
  return withKvRetry(async () => {
    const entry = await leasedTask(gateway.kv, taskId, workerId);
    if (!entry) return false;
    const next = { ...entry.value, ...update };
    const result = await writeTask(gateway.kv.atomic().check(entry), entry.value, next).commit();
    return result.ok;
  });
}

/** Gives the task back to be picked up again at `nextCheckAt`; false when the lease was lost. */
export function rescheduleTask(
  gateway: Gateway,
  taskId: string,
  workerId: string,
  nextCheckAt: number,
  update: TaskUpdate = {},
): Promise<boolean> {
  return updateLeasedTask(gateway, taskId, workerId, {
    ...update,
    next_check_at: nextCheckAt,
    lease_owner: null,
    lease_until: null,
  });
}

async function spendingLimitOf(gateway: Gateway, keyId: string): Promise<SpendingLimit> {
  const key = await gateway.keys.get(keyId).catch(() => null);
  return key ?? { unlimited: false, credit_limit: 0 };
}

/**
 * Ends the task with `update` (status succeeded or failed) and, in the same commit, settles its
 * hold to `money.cost` or releases it. Returns false when this worker no longer holds the lease
 * or the task had already ended: then nothing was written.
 */
export async function endTask(
  gateway: Gateway,
  task: Pick<TaskRecord, "id" | "key_id">,
  workerId: string,
  update: TaskUpdate,
  money: { cost: number } | { release: string },
): Promise<boolean> {
  let applied = false;
  const guard = async (atomic: Deno.AtomicOperation) => {
    applied = false;
    const entry = await leasedTask(gateway.kv, task.id, workerId);
    if (!entry) return false;
    const next: TaskRecord = { ...entry.value, ...update, lease_owner: null, lease_until: null };
    writeTask(atomic.check(entry), entry.value, next);
    applied = true;
    return true;
  };
  // A retry is safe: the guard re-reads the lease, and the ledger moves a ref's money once.
  await withKvRetry(async () => {
    if ("cost" in money) {
      const limit = await spendingLimitOf(gateway, task.key_id);
      await gateway.ledger.settle(task.key_id, limit, task.id, money.cost, { guard });
    } else {
      await gateway.ledger.release(task.key_id, task.id, money.release, { guard });
    }
  });
  return applied;
}
