/** Completes the request-log record of the request that made a task, once the task ended. */

import type { Gateway } from "../core/gateway.ts";
import type { TaskRecord } from "../core/tasks/task_record.ts";
import { type TaskEnd, taskEndedRecord } from "../core/telemetry/task_end_record.ts";

/** Writes `end` into the record of `task`'s request (off the task's path; shutdown awaits it). */
export function logTaskEnd(gateway: Gateway, task: TaskRecord, end: TaskEnd): void {
  const requestId = task.request_id;
  if (!requestId) return;
  const completing = gateway.requestLog.amend(requestId, (record) => taskEndedRecord(record, end))
    .catch((error) => {
      // The money already moved; only the record stays pending (its receipt shows the hold).
      console.error(JSON.stringify({
        msg: "request log record not completed",
        request_id: requestId,
        error: String(error),
      }));
    });
  gateway.track(completing);
}
