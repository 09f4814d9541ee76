/**
 * Task records: the state of asynchronous work (image tasks, video tasks) in KV. A record and its
 * due-index entry change together in one commit, checked against the record's versionstamp, so
 * a worker that lost its lease can never overwrite a newer state.
 */

import { timeOrderedId } from "../util/ids.ts";
import { kvKeys } from "../kv/kv_keys.ts";
import type { KvAtomic } from "../kv/kv_backend.ts";

export type TaskStatus = "submitted" | "in_progress" | "succeeded" | "failed";

/** The raw status shown beside the normalised one. */
export const RAW_STATUS: Record<TaskStatus, string> = {
  submitted: "SUBMITTED",
  in_progress: "IN_PROGRESS",
  succeeded: "SUCCESS",
  failed: "FAILURE",
};

export interface TaskRecord<Input = unknown> {
  id: string;
  kind: "image" | "video";
  /** `generations` or `edits` for images. */
  action: string;
  /** The key owner the task belongs to (see ownerOf); only keys of this owner can read it. */
  owner: string;
  key_id: string;
  /** The wallet its money is held in (its key's account's); absent before accounts: `key_id`. */
  wallet_id?: string;
  model: string;
  status: TaskStatus;
  progress: string;
  /** Unix seconds. */
  submit_time: number;
  start_time: number | null;
  finish_time: number | null;
  /** Runs started; a run that dies with its process is counted when the lease runs out. */
  attempts: number;
  /** Units held at submission, settled or released exactly once when the task ends. */
  held: number;
  cost: number | null;
  fail_reason: string | null;
  channel_id: string | null;
  result_url: string | null;
  image_urls: string[] | null;
  /**
   * The media id a finished video is hosted under (video upstreams whose result needs the
   * channel's key), chosen before the download so a run done again stores it once.
   */
  result_media_id?: string | null;
  /** The upstream's own id of the task, once submitted (video tasks). */
  upstream_id?: string | null;
  /**
   * A submission whose answer never came (a timeout, 504 or 524): the upstream may have made the
   * task. Where the provider dedupes by the task id, the same channel and key are asked again;
   * otherwise `needs_operator` is set and the gateway never submits the task again by itself.
   */
  submission_unknown?: SubmissionUnknown | null;
  /**
   * SHA-256 of the whole normalized request, files included (tasks made with an
   * Idempotency-Key): a repeat of the key is a replay only when its digest is this one.
   */
  request_digest?: string | null;
  /** The request that made the task (its request-log record gets the task's end). */
  request_id?: string | null;
  /** The client's callback_url and the webhook endpoint whose secret signs it (core/webhooks). */
  callback?: TaskCallback | null;
  /** When a worker should look at the task next (ms); mirrored in the due index. */
  next_check_at: number;
  lease_owner: string | null;
  lease_until: number | null;
  /** Work-specific input: what the worker needs to run it again after a restart. */
  input: Input;
}

/** A submission that may have been made upstream with its answer lost (see TaskRecord). */
export interface SubmissionUnknown {
  channel_id: string;
  /** The fingerprint of the channel key the submission used. */
  key_fingerprint: string | null;
  reason: string;
  /** ISO 8601. */
  at: string;
  /**
   * Held for the operator: the provider has no idempotency key, so asking again could make a
   * second billed task. Shown in the admin task list and the console; resolved by
   * `POST /admin/tasks/{id}/resolve`, else the task fails (refunded) at its timeout.
   */
  needs_operator: boolean;
}

/** Where a task's events go besides the operator's endpoints, as its client asked. */
export interface TaskCallback {
  url: string;
  endpoint_id: string;
}

export function isFinished(task: Pick<TaskRecord, "status">): boolean {
  return task.status === "succeeded" || task.status === "failed";
}

/** How far along each status is: a task's status only ever moves to a higher rank. */
const STATUS_RANK: Record<TaskStatus, number> = {
  submitted: 0,
  in_progress: 1,
  succeeded: 2,
  failed: 2,
};

/** The number in a progress text such as `50%`, or null when it has none. */
function percentOf(progress: string | undefined): number | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*%\s*$/.exec(progress ?? "");
  return match ? Number(match[1]) : null;
}

/**
 * `next` with its status and progress kept from moving backwards from `previous`: statuses go
 * submitted → in_progress → succeeded | failed only (an upstream that reports queued after
 * running does not take a task back), and a progress percentage never drops.
 */
export function forwardOnly<T extends Pick<TaskRecord, "status" | "progress">>(
  previous: Pick<TaskRecord, "status" | "progress">,
  next: T,
): T {
  const status = STATUS_RANK[next.status] < STATUS_RANK[previous.status]
    ? previous.status
    : next.status;
  const before = percentOf(previous.progress);
  const after = percentOf(next.progress);
  // A text without a percentage never takes the place of one.
  const progress = before !== null && (after === null || after < before)
    ? previous.progress
    : next.progress;
  return status === next.status && progress === next.progress
    ? next
    : { ...next, status, progress };
}

/** Adds to `atomic` the writes that replace `previous` (null for a new task) by `next`. */
export function writeTask(
  atomic: KvAtomic,
  { previous, next }: { previous: TaskRecord | null; next: TaskRecord },
): KvAtomic {
  if (previous && !isFinished(previous)) {
    atomic.delete(kvKeys.taskDue(previous.next_check_at, previous.id));
  }
  atomic.set(kvKeys.task(next.id), next);
  // Indexed to the millisecond (submit_time is in seconds) and, within one, by a time-ordered
  // id (task ids are random), so admin lists show tasks newest first.
  if (!previous) atomic.set(kvKeys.taskByTime(Date.now(), timeOrderedId("t")), next.id);
  if (!isFinished(next)) atomic.set(kvKeys.taskDue(next.next_check_at, next.id), next.id);
  return atomic;
}

/** Unix seconds now. */
export function unixNow(): number {
  return Math.floor(Date.now() / 1000);
}

/** What a new task is made of; everything else starts empty. */
export interface NewTask<Input> {
  id: string;
  kind: TaskRecord["kind"];
  action: string;
  owner: string;
  key_id: string;
  /** The wallet its money is held in. */
  wallet_id: string;
  model: string;
  /** The progress shown while submitted. */
  progress: string;
  /** Units held for it. */
  held: number;
  /** The request's digest when it was made with an Idempotency-Key. */
  request_digest?: string | null;
  /** The request that made it. */
  request_id?: string | null;
  /** The client's callback_url, allowed by a webhook endpoint. */
  callback?: TaskCallback | null;
  input: Input;
}

/** A new task record, due at once. The one place a task record is built. */
export function newTaskRecord<Input>(fields: NewTask<Input>): TaskRecord<Input> {
  const now = Date.now();
  return {
    ...fields,
    status: "submitted",
    submit_time: Math.floor(now / 1000),
    start_time: null,
    finish_time: null,
    attempts: 0,
    cost: null,
    fail_reason: null,
    channel_id: null,
    result_url: null,
    image_urls: null,
    upstream_id: null,
    request_digest: fields.request_digest ?? null,
    callback: fields.callback ?? null,
    next_check_at: now,
    lease_owner: null,
    lease_until: null,
  };
}
