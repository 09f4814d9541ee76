/**
 * The two ways an image request is served: at once (`serveImages`), or as a task
 * (`submitImageTask`, then workers/image_task.ts). Both bill per delivered image.
 */

import type { Gateway } from "../gateway.ts";
import type { MediaRecord } from "../media/media_store.ts";
import { randomBase62 } from "../util/ids.ts";
import { headerList } from "../util/header_value.ts";
import { ownerOf } from "../keys/key_schema.ts";
import { RequestBill } from "../billing/request_bill.ts";
import { walletOf } from "../billing/ledger_records.ts";
import type { RequestScope } from "../scope.ts";
import { newTaskRecord, type TaskRecord, unixNow } from "../tasks/task_record.ts";
import { bytesDigest, idempotentTaskId, replayOf, requestDigest } from "../tasks/idempotency.ts";
import type { ImageJob, InputImage } from "../jobs/image_job.ts";
import {
  fetchableHostsFor,
  resolveImageModel,
  runImageJob,
  undeliverable,
} from "./image_generation.ts";
import { deliverImages, type ImageItem, type ResponseFormat } from "./deliver_images.ts";
import { checkUserLength, checkVariantSize } from "./request_schema.ts";
import { receiptOf, type ReceiptPricing } from "../billing/receipt.ts";
import { settleAndLog } from "../billing/settle_and_log.ts";

export interface ImagesAnswer {
  body: { created: number; data: ImageItem[] };
  headers: Record<string, string>;
}

/** The 402's advice besides adding credit, for image requests. */
export const IMAGES_REMEDY = "ask for fewer images";

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
    ...(ignoredFields.length ? { "x-gateway-ignored-fields": headerList(ignoredFields) } : {}),
  };
}

/**
 * Settles `count` delivered images off the response path and logs the request with its receipt
 * (the same imageCost that the hold used).
 */
export function settleImagesLater(
  scope: RequestScope,
  input: {
    bill: RequestBill;
    /** The pricing of the `count` images delivered (resolveImageModel's `pricingOf`). */
    pricing: ReceiptPricing;
    count: number;
    channelId: string;
  },
): void {
  const { gateway, context } = scope;
  const { bill, pricing, count, channelId } = input;
  // Logged with the answer's latency, once the settle is written.
  const log = context.finishLater({ status: 200, channelId, images: count });
  gateway.track(settleAndLog(bill, { pricing, log }));
}

/**
 * Serves `job` synchronously: the answer is `{created, data[]}` in `format`. `ignoredFields`
 * (the request's fields no image request takes) are named with those the channel dropped.
 */
export async function serveImages(
  scope: RequestScope,
  input: { job: ImageJob; format: ResponseFormat; ignoredFields?: string[] },
): Promise<ImagesAnswer> {
  const { gateway, context, key, signal, publicUrl } = scope;
  const { job, format } = input;
  checkVariantSize(job.model, job.size);
  const { model, order, costOf, pricingOf } = resolveImageModel(gateway, { key, job });
  checkUserLength(job.user, model);
  const bill = new RequestBill(gateway.ledger, {
    key,
    ref: context.id,
    remedy: IMAGES_REMEDY,
    aggregate: false,
  });
  await bill.hold(costOf(job.n));
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
    ignoredFields = [...input.ignoredFields ?? [], ...result.ignoredFields];
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
  const cost = costOf(delivered.items.length);
  context.logsLater = true;
  settleImagesLater(scope, {
    bill,
    pricing: pricingOf(delivered.items.length),
    count: delivered.items.length,
    channelId,
  });
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

async function storeInput(
  gateway: Gateway,
  image: InputImage,
  stored: MediaRecord[],
): Promise<StoredInputImage> {
  const record = await gateway.media.put(image.bytes, {
    contentType: image.mimeType,
    owner: "gateway",
  });
  stored.push(record);
  return { media_id: record.id, mimeType: record.content_type, filename: image.filename };
}

/** A submitted image task; `replayed` when an earlier request with the same key made it. */
export interface ImageSubmission {
  task: TaskRecord<ImageTaskInput>;
  replayed: boolean;
}

async function fileDigest(image: InputImage) {
  return {
    filename: image.filename,
    mime_type: image.mimeType,
    size: image.bytes.length,
    sha256: await bytesDigest(image.bytes),
  };
}

/** The digest of the whole request as the task runs it, source images and mask included. */
async function digestOf(job: ImageJob, format: ResponseFormat): Promise<string> {
  const { images, mask, ...fields } = job;
  return requestDigest({
    kind: "image",
    ...fields,
    response_format: format,
    images: await Promise.all(images.map(fileDigest)),
    mask: mask ? await fileDigest(mask) : null,
  });
}

/** The task an Idempotency-Key made earlier for this owner, if any (409 for another request). */
async function earlierTask(
  gateway: Gateway,
  taskId: string,
  expected: { owner: string; wallet: string; digest: string },
): Promise<TaskRecord<ImageTaskInput> | null> {
  return replayOf(await gateway.tasks.get<ImageTaskInput>(taskId), {
    ...expected,
    kind: "image",
    what: "image request",
  });
}

/**
 * Accepts `job` as a task: the hold and the task record are written in one commit, so a task
 * exists exactly when its money is held. With `idempotencyKey`, a repeat of the same request
 * (every field and every file's bytes) by the same owner answers the task made the first time,
 * with no second charge, even when the repeats arrive at once; the same key with another request
 * is 409 `idempotency_key_reused`.
 */
export async function submitImageTask(
  scope: RequestScope,
  request: {
    job: ImageJob;
    format: ResponseFormat;
    idempotencyKey?: string;
    /** The client's callback_url (checked against the webhook endpoints before any hold). */
    callbackUrl?: string;
  },
): Promise<ImageSubmission> {
  const { gateway, key, publicUrl } = scope;
  const { job, format, idempotencyKey } = request;
  checkVariantSize(job.model, job.size);
  const { model, costOf, pricingOf } = resolveImageModel(gateway, { key, job });
  checkUserLength(job.user, model);
  const callback = request.callbackUrl === undefined
    ? null
    : await gateway.webhooks.taskCallback(key, request.callbackUrl);
  const owner = ownerOf(key);
  const digest = idempotencyKey ? await digestOf(job, format) : null;
  const taskId = idempotencyKey
    ? await idempotentTaskId({ owner, kind: "image", key: idempotencyKey })
    : `task_${randomBase62(24)}`;
  if (idempotencyKey) {
    const earlier = await earlierTask(gateway, taskId, {
      owner,
      wallet: walletOf(key),
      digest: digest!,
    });
    if (earlier) return { task: earlier, replayed: true };
  }
  const { images, mask, ...jobFields } = job;
  // Inputs stored so far, deleted again when no task is made of them.
  const stored: MediaRecord[] = [];
  try {
    const input: ImageTaskInput = {
      job: jobFields,
      images: await Promise.all(images.map((image) => storeInput(gateway, image, stored))),
      mask: mask ? await storeInput(gateway, mask, stored) : null,
      public_url: publicUrl,
    };
    const task = newTaskRecord<ImageTaskInput>({
      id: taskId,
      kind: "image",
      action: job.action,
      owner,
      key_id: key.id,
      wallet_id: walletOf(key),
      model: job.model,
      progress: "10%",
      held: costOf(job.n),
      request_digest: digest,
      request_id: scope.context.id,
      callback,
      input,
    });
    const hold = await gateway.tasks.create(task, {
      key,
      idempotent: Boolean(idempotencyKey),
      remedy: IMAGES_REMEDY,
    });
    scope.context.task = {
      id: task.id,
      receipt: receiptOf(pricingOf(job.n), {
        entries: [hold],
        status: "held",
        held: task.held,
      }),
    };
    return { task, replayed: false };
  } catch (error) {
    await Promise.all(stored.map((record) => gateway.media.delete(record).catch(() => {})));
    if (idempotencyKey) {
      const earlier = await earlierTask(gateway, taskId, {
        owner,
        wallet: walletOf(key),
        digest: digest!,
      });
      if (earlier) return { task: earlier, replayed: true };
    }
    throw error;
  }
}
