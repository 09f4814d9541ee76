/**
 * A task's progress as the console shows it. A failed task has none: upstreams report "100%" for
 * a task that ended in failure, which read as done; its status and failure say what happened.
 */

import type { TaskRecord } from "../../core/tasks/task_record.ts";

export function shownProgress(task: Pick<TaskRecord, "status" | "progress">): string | null {
  return task.status === "failed" ? null : task.progress;
}
