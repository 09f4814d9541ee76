/** Completes the request-log record of the request that made a task, once the task ended. */

import type { Gateway } from "../core/gateway.ts";
import type { TaskRecord } from "../core/tasks/task_record.ts";
import { type TaskEnd, taskEndedRecord } from "../core/telemetry/task_end_record.ts";

/** Writes `end` into the record of `task`'s request (off the task's path; shutdown awaits it). */
export function logTaskEnd(gateway: Gateway, task: TaskRecord, end: TaskEnd): void {
  const requestId = task.request_id;
  if (!requestId) return;
  gateway.track(gateway.requestLog.amend(requestId, (record) => taskEndedRecord(record, end)));
}
