/**
 * Runs video tasks. Each run is short: submit the task upstream (once it has no upstream id), or
 * poll the upstream once, then give the task back with its next check time. The waits between
 * polls grow from GATEWAY_VIDEO_POLL_MIN_MS by 1.5 times up to GATEWAY_VIDEO_POLL_MAX_MS, and
 * many tasks are polled at once (the worker runs up to its concurrency in parallel). A task ends
 * as SUCCESS (the hold is settled) or FAILURE (refunded by the model's policy, in full for
 * per-second models) in one commit under the worker's lease, so it happens exactly once. Each
 * submission attempt counts in its channel's health as a request's attempt does; polls do not
 * (they read work already counted).
 */

import { taskFailReason } from "./task_fail_reason.ts";
import type { Channel } from "../core/channels/channel_schema.ts";
import { crashPoint } from "../core/crash_points.ts";
import { GatewayError } from "../core/errors.ts";
import type { Gateway } from "../core/gateway.ts";
import { providerOf, servesKind, upstreamTarget } from "../core/providers/provider_table.ts";
import { eligibleChannels, keyByFingerprint, planChannelOrder } from "../core/channels/routing.ts";
import { type SubmissionUnknown, type TaskRecord, unixNow } from "../core/tasks/task_record.ts";
import { isUnanswered, UpstreamAttemptError } from "../core/upstream/attempt.ts";
import { type AttemptTrace, withFailover } from "../core/upstream/failover.ts";
import { callUpstream } from "../core/upstream/call.ts";
import type { AttemptRecord } from "../core/telemetry/request_log.ts";
import type { UpstreamVideoState, VideoReference } from "../core/jobs/video_job.ts";
import { extensionOf } from "../core/video/reference_media.ts";
import { failureCost } from "../core/billing/video_price.ts";
import type { VideoTaskInput } from "../core/video/video_service.ts";
import type { TaskKind, TaskRun } from "./task_worker.ts";
import { logTaskEnd } from "./task_log.ts";
import { resultUrlProblem } from "../core/media/result_url.ts";
import { UnhostableMediaError } from "../core/media/media_store.ts";
import { FinalDownloadError } from "../core/providers/provider.ts";
import { hostVideoResult } from "./video_result.ts";
import { channelRefusal } from "../core/video/video_refusal.ts";

/** Submissions tried (each over every channel) before the task fails. */
const MAX_SUBMIT_RUNS = 5;

type VideoTask = TaskRecord<VideoTaskInput>;

/** The wait before poll number `polls` (0 for the first). */
export function pollDelay(
  polls: number,
  { minMs, maxMs }: { minMs: number; maxMs: number },
): number {
  return Math.min(maxMs, minMs * Math.pow(1.5, Math.max(0, polls)));
}

/** The hosted address of a stored reference, for an upstream to fetch. */
function referenceUrl(task: VideoTask, reference: VideoReference): string {
  return `${task.input.public_url}/media/${reference.media_id}.${
    extensionOf(reference.content_type)
  }`;
}

async function submitOnce(
  gateway: Gateway,
  task: VideoTask,
  channel: Channel,
  options: { signal: AbortSignal; trace: AttemptTrace },
): Promise<string> {
  const provider = providerOf(channel);
  const video = provider.video!;
  const request = await video.create(upstreamTarget(channel, task.model, options.trace), {
    job: task.input.job,
    references: {
      urlOf: (reference) => referenceUrl(task, reference),
      async fileOf(reference) {
        const { bytes } = await gateway.media.readOwn(reference.media_id);
        return new Blob([bytes as Uint8Array<ArrayBuffer>], { type: reference.content_type });
      },
      idempotencyKey: task.id,
    },
  });
  return video.readCreated(
    await callUpstream(channel, request, {
      ...options,
      errors: provider.errors,
      maxBytes: gateway.options.upstreamMaxBytes.media,
    }),
  );
}

async function pollOnce(
  channel: Channel,
  task: VideoTask,
  signal: AbortSignal,
): Promise<UpstreamVideoState> {
  const provider = providerOf(channel);
  const video = provider.video!;
  const request = video.poll(upstreamTarget(channel, task.model), task.upstream_id!);
  return video.readTask(await callUpstream(channel, request, { signal, errors: provider.errors }));
}

/** Ends the task as FAILURE with its refund. */
async function fail(gateway: Gateway, task: VideoTask, workerId: string, reason: string) {
  crashPoint("video.before_end");
  const cost = failureCost(task.held, task.input.refund_percent);
  const ended = await gateway.tasks.end(task, {
    workerId,
    update: {
      status: "failed",
      progress: "100%",
      finish_time: unixNow(),
      fail_reason: reason,
      cost,
    },
    money: cost > 0 ? { cost } : { release: `video task failed: ${reason}` },
  });
  crashPoint("video.after_end");
  if (!ended) return;
  gateway.metrics.add("gateway_video_tasks_total", { outcome: "failed" }, 1);
  logTaskEnd(gateway, task, {
    status: "failed",
    channelId: task.channel_id,
    held: task.held,
    entry: ended.entry,
    refundPercent: task.input.refund_percent,
  });
}

async function succeed(gateway: Gateway, task: VideoTask, workerId: string, videoUrl: string) {
  crashPoint("video.before_end");
  const ended = await gateway.tasks.end(task, {
    workerId,
    update: {
      status: "succeeded",
      progress: "100%",
      finish_time: unixNow(),
      result_url: videoUrl,
      fail_reason: null,
      cost: task.held,
    },
    money: { cost: task.held },
  });
  crashPoint("video.after_end");
  if (ended) {
    gateway.metrics.add("gateway_video_tasks_total", { outcome: "succeeded" }, 1);
    gateway.metrics.add("gateway_cost_units_total", { model: task.model }, task.held);
    logTaskEnd(gateway, task, {
      status: "succeeded",
      channelId: task.channel_id,
      held: task.held,
      entry: ended.entry,
      billedSeconds: (task.input.billed_ms ?? task.input.job.duration * 1000) / 1000,
    });
  }
}

function nextCheck(gateway: Gateway, task: VideoTask): number {
  const { pollMinMs, pollMaxMs } = gateway.options.video;
  return Date.now() + pollDelay(task.attempts - 1, { minMs: pollMinMs, maxMs: pollMaxMs });
}

/** Whether an upstream refusal is final (the request itself was refused), not a passing fault. */
function isFinalRefusal(error: unknown): boolean {
  return error instanceof GatewayError && error.status < 500 && error.status !== 429 &&
    error.status !== 499;
}

/**
 * The channels a submission may go to: any eligible one, or, after a submission whose answer was
 * lost on a provider that dedupes by the task id, only that channel with that key (so the upstream
 * finds its first task); null when that channel or key is gone.
 */
function submissionOrder(gateway: Gateway, task: VideoTask): Channel[] | null {
  const pinned = task.submission_unknown;
  if (!pinned) {
    const { job } = task.input;
    return planChannelOrder(
      eligibleChannels(gateway.registry.channels, { model: task.model, group: task.input.group })
        .filter((channel) =>
          servesKind(channel, "video") && !channelRefusal(channel, { model: task.model, ask: job })
        ),
    );
  }
  const channel = gateway.registry.channels.find((candidate) => candidate.id === pinned.channel_id);
  const key = channel && keyByFingerprint(channel, pinned.key_fingerprint ?? "");
  if (!channel || !channel.enabled || key === undefined) return null;
  return [{ ...channel, keys: [key] }];
}

/**
 * A submission whose answer was lost (timeout, 504, 524) may have made the task upstream, so it
 * is never sent to another channel. Where the provider dedupes by the task id (and runs are left)
 * the same channel and key are asked again at the next run; otherwise the task is held for the
 * operator until its timeout (then it fails, refunded), with `submission_unknown.needs_operator`.
 */
async function holdUnknown(
  gateway: Gateway,
  task: VideoTask,
  run: TaskRun,
  lost: LostSubmission,
): Promise<void> {
  const retryable = lost.idempotent && task.attempts < MAX_SUBMIT_RUNS;
  const reason = `the submission to channel '${lost.channelId}' got no answer ` +
    `(${lost.message}); the upstream may have made the task` +
    (retryable
      ? ", so it is asked again there with the same idempotency key"
      : lost.idempotent
      ? ": held for the operator, not submitted again"
      : ": it has no idempotency key, so the task is held for the operator and not submitted again");
  const unknown: SubmissionUnknown = {
    channel_id: lost.channelId,
    key_fingerprint: lost.keyFingerprint ?? null,
    reason,
    at: new Date().toISOString(),
    needs_operator: !retryable,
  };
  await gateway.tasks.reschedule(task.id, {
    workerId: run.workerId,
    at: retryable ? nextCheck(gateway, task) : deadlineOf(gateway, task),
    update: { submission_unknown: unknown, channel_id: lost.channelId },
  });
}

/** A submission whose answer was lost: where it went, and whether its upstream dedupes. */
interface LostSubmission {
  channelId: string;
  keyFingerprint?: string;
  message: string;
  idempotent: boolean;
}

/** When a task times out (ms). */
function deadlineOf(gateway: Gateway, task: VideoTask): number {
  return task.submit_time * 1000 + gateway.options.video.timeoutMs;
}

async function submit(gateway: Gateway, task: VideoTask, run: TaskRun): Promise<void> {
  if (task.submission_unknown?.needs_operator) {
    // Held for the operator: never submitted again by the worker.
    await gateway.tasks.reschedule(task.id, {
      workerId: run.workerId,
      at: deadlineOf(gateway, task),
    });
    return;
  }
  const order = submissionOrder(gateway, task);
  if (order === null) {
    const pinned = task.submission_unknown!;
    await holdUnknown(gateway, task, run, {
      channelId: pinned.channel_id,
      keyFingerprint: pinned.key_fingerprint ?? undefined,
      message: "its channel or key is now gone or disabled, so it cannot be asked again",
      idempotent: false,
    });
    return;
  }
  const attempts: AttemptRecord[] = [];
  let lost: LostSubmission | undefined;
  try {
    if (order.length === 0) {
      throw new GatewayError("no_available_channel", 503, "no enabled channel serves the model");
    }
    const { result: upstreamId, channel } = await withFailover(
      order,
      async (channel, trace) => {
        try {
          return await submitOnce(gateway, task, channel, { signal: run.signal, trace });
        } catch (error) {
          if (!(error instanceof UpstreamAttemptError) || !isUnanswered(error)) throw error;
          lost = {
            channelId: channel.id,
            keyFingerprint: trace.keyFingerprint,
            message: error.message,
            idempotent: providerOf(channel).video!.idempotent === true,
          };
          // Not retried on another channel: this one may have made the task.
          throw new UpstreamAttemptError(error.message, {
            retryable: false,
            status: error.status,
            errorClass: error.errorClass,
          });
        }
      },
      {
        maxAttempts: 1 + gateway.options.maxRetries,
        signal: run.signal,
        metrics: gateway.metrics,
        log: attempts,
        breakers: gateway.breakers,
        observe: gateway.autoDisabler.observer,
      },
    ).finally(() => gateway.requestLog.countAttempts(attempts));
    await gateway.tasks.reschedule(task.id, {
      workerId: run.workerId,
      at: nextCheck(gateway, task),
      update: {
        upstream_id: upstreamId,
        channel_id: channel.id,
        fail_reason: null,
        submission_unknown: null,
      },
    });
  } catch (error) {
    if (run.signal.aborted) return;
    if (lost) {
      await holdUnknown(gateway, task, run, lost);
      return;
    }
    const reason = taskFailReason(error, task.id);
    if (isFinalRefusal(error) || task.attempts >= MAX_SUBMIT_RUNS) {
      await fail(gateway, task, run.workerId, `submission failed: ${reason}`);
      return;
    }
    await gateway.tasks.reschedule(task.id, {
      workerId: run.workerId,
      at: nextCheck(gateway, task),
      update: {
        fail_reason: reason,
      },
    });
  }
}

async function poll(gateway: Gateway, task: VideoTask, run: TaskRun): Promise<void> {
  const channel = gateway.registry.channels.find((candidate) => candidate.id === task.channel_id);
  if (!channel) {
    await fail(gateway, task, run.workerId, "the channel that runs the task was removed");
    return;
  }
  let state: UpstreamVideoState;
  try {
    state = await pollOnce(channel, task, run.signal);
  } catch (error) {
    if (run.signal.aborted) return;
    if (error instanceof UpstreamAttemptError && error.status === 404) {
      await fail(gateway, task, run.workerId, "the upstream no longer knows the task");
      return;
    }
    // A passing fault (network, 5xx, a garbled answer): look again later, until the timeout.
    await gateway.tasks.reschedule(task.id, {
      workerId: run.workerId,
      at: nextCheck(gateway, task),
    });
    return;
  }
  switch (state.state) {
    case "succeeded": {
      if ("download" in state) return await succeedHosted(gateway, task, run, channel, state);
      // A result URL that is not http(s) is never stored or linked: the task fails, refunded.
      const problem = resultUrlProblem(state.videoUrl);
      if (problem) return await fail(gateway, task, run.workerId, problem);
      return await succeed(gateway, task, run.workerId, state.videoUrl);
    }
    case "failed":
      return await fail(gateway, task, run.workerId, state.reason);
    default:
      await gateway.tasks.reschedule(task.id, {
        workerId: run.workerId,
        at: nextCheck(gateway, task),
        update: {
          status: state.state === "queued" ? "submitted" : "in_progress",
          progress: state.progress ?? (state.state === "queued" ? "20%" : "50%"),
        },
      });
  }
}

/**
 * Ends a task whose video needs the channel's key: fetched and hosted, then SUCCESS with the
 * hosted address. A download that fails is tried again at the next check (until the task's
 * timeout fails it, refunded); bytes that are not a video, or an address the key may not go to,
 * fail it at once.
 */
async function succeedHosted(
  gateway: Gateway,
  task: VideoTask,
  run: TaskRun,
  channel: Channel,
  state: { download: string },
): Promise<void> {
  let hosted: string | null;
  try {
    hosted = await hostVideoResult(gateway, task, {
      channel,
      download: state.download,
      workerId: run.workerId,
      signal: run.signal,
    });
  } catch (error) {
    if (run.signal.aborted) return;
    if (error instanceof FinalDownloadError) {
      return await fail(gateway, task, run.workerId, error.message);
    }
    if (error instanceof UnhostableMediaError) {
      return await fail(gateway, task, run.workerId, `the upstream's video: ${error.message}`);
    }
    await gateway.tasks.reschedule(task.id, {
      workerId: run.workerId,
      at: nextCheck(gateway, task),
      update: {
        fail_reason: `the finished video could not be fetched yet (${
          taskFailReason(error, task.id)
        }); tried again`,
      },
    });
    return;
  }
  if (hosted !== null) await succeed(gateway, task, run.workerId, hosted);
}

/** The worker's handler for `video` tasks. */
export async function runVideoTask(gateway: Gateway, run: TaskRun): Promise<void> {
  const task = run.task as VideoTask;
  const timeoutMs = gateway.options.video.timeoutMs;
  if (Date.now() - task.submit_time * 1000 > timeoutMs) {
    await fail(gateway, task, run.workerId, `timed out after ${timeoutMs / 60_000} minutes`);
    return;
  }
  if (!task.upstream_id) await submit(gateway, task, run);
  else await poll(gateway, task, run);
}

/** Video tasks keep the status the upstream last reported while a worker looks at them. */
export const VIDEO_TASKS: TaskKind = { run: runVideoTask };
