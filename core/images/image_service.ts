/**
 * The two ways an image request is served: at once (`serveImages`), or as a task
 * (`submitImageTask`, then workers/image_task.ts). Both bill per delivered image.
 */

import type { Gateway } from "../gateway.ts";
import { randomBase62 } from "../util/ids.ts";
import { ownerOf } from "../keys/key_schema.ts";
import { RequestBill } from "../billing/request_bill.ts";
import type { RequestScope } from "../scope.ts";
import { newTaskRecord, type TaskRecord, unixNow } from "../tasks/task_record.ts";
import type { ImageJob, InputImage } from "../jobs/image_job.ts";
import {
  fetchableHostsFor,
  resolveImageModel,
  runImageJob,
  undeliverable,
} from "./image_generation.ts";
import { deliverImages, type ImageItem, type ResponseFormat } from "./deliver_images.ts";

export interface ImagesAnswer {
  body: { created: number; data: ImageItem[] };
  headers: Record<string, string>;
}

/** Response headers every image answer carries. */
export function imageAnswerHeaders(
  { channelId, ignoredFields, count, cost }: {
    channelId: string;
    ignoredFields: string[];
    count: number;
    cost: number;
  },
): Record<string, string> {
  return {
    "x-gateway-channel": channelId,
    "x-gateway-billed-images": String(count),
    "x-gateway-cost-units": String(cost),
    ...(ignoredFields.length ? { "x-gateway-ignored-fields": ignoredFields.join(",") } : {}),
  };
}

/** Serves `job` synchronously: the answer is `{created, data[]}` in `format`. */
export async function serveImages(
  scope: RequestScope,
  input: { job: ImageJob; format: ResponseFormat },
): Promise<ImagesAnswer> {
  const { gateway, context, key, signal, publicUrl } = scope;
  const { job, format } = input;
  const { order, unitPrice } = resolveImageModel(gateway, { key, job });
  const bill = new RequestBill(gateway.ledger, { key, ref: context.id });
  await bill.hold(unitPrice * job.n);
  let delivered: { items: ImageItem[]; failures: string[] };
  let channelId: string;
  let ignoredFields: string[];
  try {
    const { result, channel } = await runImageJob(gateway, order, {
      job,
      signal,
      log: context.upstreamAttempts,
    });
    channelId = channel.id;
    ignoredFields = result.ignoredFields;
    await bill.confirmed();
    delivered = await deliverImages(gateway, result.images.slice(0, job.n), {
      format,
      target: {
        publicUrl,
        owner: ownerOf(key),
        fetchableHosts: fetchableHostsFor(gateway, channel),
        signal,
      },
    });
    if (delivered.items.length === 0) throw undeliverable(delivered.failures);
  } catch (error) {
    await bill.release("image request failed");
    throw error;
  }
  const cost = unitPrice * delivered.items.length;
  context.logsLater = true;
  gateway.track((async () => {
    await bill.settle(cost);
    context.finish({ status: 200, channelId, cost });
  })());
  return {
    body: { created: unixNow(), data: delivered.items },
    headers: imageAnswerHeaders({ channelId, ignoredFields, count: delivered.items.length, cost }),
  };
}

/**
 * An edit's source image kept in the media store until the task has run; `mimeType` is the type
 * the store found in its bytes, not the upload's part type.
 */
export interface StoredInputImage {
  media_id: string;
  mimeType: string;
  filename: string;
}

export interface ImageTaskInput {
  job: Omit<ImageJob, "images" | "mask">;
  images: StoredInputImage[];
  mask: StoredInputImage | null;
  /** Base URL of the hosted results. */
  public_url: string;
}

async function storeInput(gateway: Gateway, image: InputImage): Promise<StoredInputImage> {
  const record = await gateway.media.put(image.bytes, {
    contentType: image.mimeType,
    owner: "gateway",
  });
  return { media_id: record.id, mimeType: record.content_type, filename: image.filename };
}

/**
 * Accepts `job` as a task: the hold and the task record are written in one commit, so a task
 * exists exactly when its money is held. Returns the new task.
 */
export async function submitImageTask(
  scope: RequestScope,
  job: ImageJob,
): Promise<TaskRecord<ImageTaskInput>> {
  const { gateway, key, publicUrl } = scope;
  const { unitPrice } = resolveImageModel(gateway, { key, job });
  const { images, mask, ...jobFields } = job;
  const input: ImageTaskInput = {
    job: jobFields,
    images: await Promise.all(images.map((image) => storeInput(gateway, image))),
    mask: mask ? await storeInput(gateway, mask) : null,
    public_url: publicUrl,
  };
  const task = newTaskRecord<ImageTaskInput>({
    id: `task_${randomBase62(24)}`,
    kind: "image",
    action: job.action,
    owner: ownerOf(key),
    key_id: key.id,
    model: job.model,
    progress: "10%",
    held: unitPrice * job.n,
    input,
  });
  await gateway.tasks.create(task, { key });
  return task;
}
