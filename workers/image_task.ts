/**
 * Runs one image task: the same generation as the synchronous path, results always hosted.
 * A failure that another run may fix is retried (at most MAX_ATTEMPTS runs, a run lost with its
 * process included); any other failure ends the task as failed and releases its hold. Each
 * upstream attempt counts in its channel's health as a request's attempt does.
 */

import { taskFailReason } from "./task_fail_reason.ts";
import { GatewayError } from "../core/errors.ts";
import type { Gateway } from "../core/gateway.ts";
import type { KeyRecord } from "../core/keys/key_schema.ts";
import { deliverImages } from "../core/images/deliver_images.ts";
import {
  fetchableHostsFor,
  resolveImageModel,
  runImageJob,
  undeliverable,
} from "../core/images/image_generation.ts";
import type { ImageJob, InputImage } from "../core/jobs/image_job.ts";
import type { ImageTaskInput, StoredInputImage } from "../core/images/image_service.ts";
import { type TaskRecord, unixNow } from "../core/tasks/task_record.ts";
import type { TaskKind, TaskRun } from "./task_worker.ts";
import { logTaskEnd } from "./task_log.ts";
import type { AttemptRecord } from "../core/telemetry/request_log.ts";

export const MAX_ATTEMPTS = 3;
const RETRY_DELAY_MS = 2_000;

async function loadInput(gateway: Gateway, stored: StoredInputImage): Promise<InputImage> {
  const { bytes } = await gateway.media.readOwn(stored.media_id);
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  return { bytes: copy, mimeType: stored.mimeType, filename: stored.filename };
}

function isRetryable(error: unknown): boolean {
  if (error instanceof GatewayError) return error.status === 429 || error.status >= 500;
  return true;
}

/** The worker's handler for `image` tasks. */
export async function runImageTask(gateway: Gateway, run: TaskRun): Promise<void> {
  const task = run.task as TaskRecord<ImageTaskInput>;
  const fail = async (reason: string) => {
    const ended = await gateway.tasks.end(task, {
      workerId: run.workerId,
      update: {
        status: "failed",
        progress: "100%",
        finish_time: unixNow(),
        fail_reason: reason,
        cost: 0,
      },
      money: { release: `task failed: ${reason}` },
    });
    if (ended) {
      logTaskEnd(gateway, task, {
        status: "failed",
        channelId: task.channel_id,
        held: task.held,
        entry: ended.entry,
      });
    }
  };

  if (task.attempts > MAX_ATTEMPTS) {
    await fail(`gave up after ${MAX_ATTEMPTS} attempts`);
    return;
  }
  try {
    const key = await gateway.keys.get(task.key_id) as unknown as KeyRecord;
    const job: ImageJob = {
      ...task.input.job,
      images: await Promise.all(task.input.images.map((image) => loadInput(gateway, image))),
      mask: task.input.mask ? await loadInput(gateway, task.input.mask) : undefined,
    };
    const { order, costOf, pricingOf } = resolveImageModel(gateway, { key, job });
    const attempts: AttemptRecord[] = [];
    const { result, channel } = await runImageJob(gateway, order, {
      job,
      signal: run.signal,
      log: attempts,
    }).finally(() => gateway.requestLog.countAttempts(attempts));
    const delivered = await deliverImages(gateway, result.images.slice(0, job.n), {
      format: "url",
      target: {
        publicUrl: task.input.public_url,
        owner: task.owner,
        fetchableHosts: fetchableHostsFor(gateway, channel),
        signal: run.signal,
      },
    });
    if (delivered.items.length === 0) throw undeliverable(delivered.failures);
    const urls = delivered.items.map((item) => item.url!);
    const cost = costOf(urls.length);
    const ended = await gateway.tasks.end(task, {
      workerId: run.workerId,
      update: {
        status: "succeeded",
        progress: "100%",
        finish_time: unixNow(),
        channel_id: channel.id,
        result_url: urls[0],
        image_urls: urls,
        cost,
      },
      money: { cost },
    });
    gateway.metrics.add("gateway_cost_units_total", { model: task.model }, cost);
    if (ended) {
      logTaskEnd(gateway, task, {
        status: "succeeded",
        channelId: channel.id,
        held: task.held,
        entry: ended.entry,
        images: urls.length,
        pricing: pricingOf(urls.length),
      });
    }
  } catch (error) {
    if (run.signal.aborted) return; // lease lost or shutting down: the task is run again
    const reason = taskFailReason(error, task.id);
    if (isRetryable(error) && task.attempts < MAX_ATTEMPTS) {
      await gateway.tasks.reschedule(task.id, {
        workerId: run.workerId,
        at: Date.now() + RETRY_DELAY_MS,
        update: { fail_reason: reason },
      });
      return;
    }
    await fail(reason);
  }
}

/** Image tasks show `in_progress` at 50% from the moment a worker takes them. */
export const IMAGE_TASKS: TaskKind = {
  run: runImageTask,
  onClaim: () => ({ status: "in_progress", progress: "50%" }),
};
