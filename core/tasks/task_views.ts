/**
 * A task as its client status route shows it (`GET /v1/images/tasks/{id}`,
 * `GET /v1/video/generations/{id}`): the `data` of the answer. Pure; webhook payloads carry the
 * same view, so a receiver reads the same fields as a poller.
 */

import { RAW_STATUS, type TaskRecord, type TaskStatus } from "./task_record.ts";

/** The spec's video states. */
export const VIDEO_STATUS: Record<TaskStatus, string> = {
  submitted: "QUEUED",
  in_progress: "IN_PROGRESS",
  succeeded: "SUCCESS",
  failed: "FAILURE",
};

/** What a video task's view reads of its input (core/video's VideoTaskInput). */
export interface VideoViewInput {
  job: { duration: number; ratio?: string };
  billed_ms: number | null;
}

/** The `data` of GET /v1/images/tasks/{id}. */
export function imageTaskView(task: TaskRecord) {
  return {
    task_id: task.id,
    status: task.status,
    status_raw: RAW_STATUS[task.status],
    action: task.action,
    progress: task.progress,
    submit_time: task.submit_time,
    start_time: task.start_time,
    finish_time: task.finish_time,
    result_url: task.result_url,
    image_urls: task.image_urls,
    fail_reason: task.status === "failed" ? task.fail_reason : null,
    model: task.model,
  };
}

/** The `data` of GET /v1/video/generations/{id}. */
export function videoTaskView(task: TaskRecord<VideoViewInput>) {
  const videoUrl = task.status === "succeeded" ? task.result_url : null;
  return {
    task_id: task.id,
    status: VIDEO_STATUS[task.status],
    progress: task.progress,
    result_url: videoUrl,
    data: { video_url: videoUrl },
    fail_reason: task.status === "failed" ? task.fail_reason : null,
    model: task.model,
    duration: task.input.job.duration,
    ratio: task.input.job.ratio,
    submit_time: task.submit_time,
    start_time: task.start_time,
    finish_time: task.finish_time,
    billed_seconds: task.input.billed_ms === null ? null : task.input.billed_ms / 1000,
    cost_units: task.status === "succeeded" || task.status === "failed" ? task.cost : null,
  };
}

/** The status route's view of `task`, whichever its kind. */
export function taskStatusView(task: TaskRecord): Record<string, unknown> {
  return task.kind === "video"
    ? videoTaskView(task as TaskRecord<VideoViewInput>)
    : imageTaskView(task);
}
