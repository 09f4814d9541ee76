/**
 * Video submission: check the request and its reference files, read the reference durations,
 * price the task, keep the files in the media store, then hold the money and write the task in
 * one commit. Nothing is held or stored for a request that is refused.
 */

import { GatewayError, invalidRequest } from "../errors.ts";
import type { Gateway } from "../gateway.ts";
import { randomBase62 } from "../util/ids.ts";
import { ownerOf } from "../keys/key_schema.ts";
import { type DurationReaderName, SourceError } from "../media/media_duration.ts";
import type { MediaRecord } from "../media/media_store.ts";
import { resolveModel } from "../channels/model_access.ts";
import { newTaskRecord, type TaskCallback, type TaskRecord } from "../tasks/task_record.ts";
import { idempotentTaskId, replayOf, requestDigest } from "../tasks/idempotency.ts";
import { checkReferenceFile, REFERENCE_FIELDS, type ReferenceKind } from "./reference_media.ts";
import { unreadableReference } from "./unreadable_reference.ts";
import type { VideoJob, VideoReference } from "../jobs/video_job.ts";
import { type VideoRules, videoRulesOf } from "./video_models.ts";
import { checkVideoAsk, defaultVideoDuration } from "./video_refusal.ts";
import { isPerTask, type VideoBill, videoBill, type VideoPrice } from "../billing/video_price.ts";
import type { RequestScope } from "../scope.ts";
import { receiptOf, videoReceipt } from "../billing/receipt.ts";
import { walletOf } from "../billing/ledger_records.ts";
import type { PriceTier } from "../billing/price_tier.ts";

/** A file part of the upload: on disk at `path`, or in memory (no temp files here) as `bytes`. */
export interface UploadedFile {
  field: string;
  filename: string;
  path?: string;
  bytes?: Uint8Array;
  size: number;
  /** The first bytes, for the format check. */
  head: Uint8Array;
  /** SHA-256 (hex) of all its bytes, taken as they were written to disk. */
  sha256: string;
}

export interface VideoRequest {
  model: string;
  prompt: string;
  duration: number;
  ratio?: string;
  /**
   * The client sent no duration (`duration` is the gateway's default): an upstream that cannot
   * make the default gets its own (see defaultVideoDuration).
   */
  durationDefaulted?: boolean;
}

export interface VideoTaskInput {
  job: VideoJob;
  /** The key's group at submission: the channels that may serve the task. */
  group: string;
  public_url: string;
  /** Billed milliseconds (output + references) for per-second models. */
  billed_ms: number | null;
  /** Percent of the held amount refunded on failure. */
  refund_percent: number;
  /** What read the reference durations billed (absent on tasks from before it was recorded). */
  duration_reader?: DurationReaderName | null;
}

export interface VideoSubmission {
  task: TaskRecord<VideoTaskInput>;
  /** True when an earlier request with the same Idempotency-Key made the task. */
  replayed: boolean;
}

interface CheckedFile extends UploadedFile {
  kind: ReferenceKind;
  contentType: string;
  seconds: number | null;
}

async function checkFiles(files: UploadedFile[], rules: VideoRules): Promise<CheckedFile[]> {
  const checked: CheckedFile[] = [];
  for (const file of files) {
    const kind = REFERENCE_FIELDS[file.field];
    const result = await checkReferenceFile(file.field, {
      kind,
      head: file.head,
      size: file.size,
      maxBytes: rules.reference[kind].maxBytes,
    });
    if ("refused" in result) {
      throw new GatewayError(
        result.tooLarge ? "file_too_large" : "invalid_reference_file",
        result.tooLarge ? 413 : 400,
        result.refused,
        { param: file.field },
      );
    }
    checked.push({ ...file, kind, contentType: result.contentType, seconds: null });
  }
  if (
    !rules.audioAlone && checked.some((file) => file.kind === "audio") &&
    !checked.some((f) => f.kind !== "audio")
  ) {
    throw invalidRequest(
      "A reference audio needs at least one reference image or video beside it for this model",
      "audio",
    );
  }
  return checked;
}

/**
 * Reads the duration of each reference video and audio (all with one reader: ffprobe where it
 * can run, else in process); refuses what cannot be read and what lasts longer or shorter than
 * the model's rules allow. Returns the reader used, or null when there was nothing to read.
 */
async function probeDurations(
  gateway: Gateway,
  files: CheckedFile[],
  { rules, requestId }: { rules: VideoRules; requestId: string },
): Promise<DurationReaderName | null> {
  const timed = files.filter((file) => file.kind !== "image");
  if (timed.length === 0) return null;
  let read;
  try {
    read = await gateway.durations.readAll(timed.map((file) => ({
      contentType: file.contentType,
      path: file.path,
      bytes: file.bytes,
    })));
  } catch (error) {
    if (!(error instanceof SourceError)) throw error;
    const file = timed[error.index];
    // The tool's own words (a temp path, ffprobe's stderr) are for the operator only.
    gateway.options.log?.({
      msg: "reference duration unreadable",
      request_id: requestId,
      field: file.field,
      problem: error.cause.problem,
      reason: error.cause.message,
      detail: error.cause.detail,
    });
    const { minSeconds, maxSeconds } = rules.reference[file.kind];
    throw unreadableReference(file.field, {
      kind: file.kind,
      error: error.cause,
      seconds: { min: minSeconds, max: maxSeconds },
    });
  }
  for (const [index, file] of timed.entries()) {
    const probed = read.media[index];
    if (!probed.streams.includes(file.kind)) {
      throw invalidRequest(`${file.field} has no ${file.kind} stream`, file.field);
    }
    const { minSeconds, maxSeconds } = rules.reference[file.kind];
    if (probed.seconds < minSeconds || probed.seconds > maxSeconds) {
      throw invalidRequest(
        `${file.field} lasts ${probed.seconds.toFixed(3)} s; a reference ${file.kind} must last ${
          minSeconds ? `${minSeconds} to ${maxSeconds}` : `at most ${maxSeconds}`
        } seconds`,
        file.field,
      );
    }
    file.seconds = probed.seconds;
  }
  return read.reader;
}

/** The file's bytes, one fresh buffer per read, for the media store. */
async function* fileChunks(path: string): AsyncGenerator<Uint8Array> {
  using file = await Deno.open(path);
  while (true) {
    const buffer = new Uint8Array(256 * 1024);
    const read = await file.read(buffer);
    if (read === null) return;
    yield buffer.subarray(0, read);
  }
}

function checkRatio(request: VideoRequest, rules: VideoRules): string {
  const ratio = request.ratio ?? rules.defaultRatio;
  const allowed = rules.ratios;
  if (!allowed.includes(ratio)) {
    throw invalidRequest(
      ratio === "adaptive"
        ? `The model '${request.model}' does not support ratio 'adaptive'; use one of: ${
          allowed.join(", ")
        }`
        : `ratio must be one of: ${allowed.join(", ")}`,
      "ratio",
    );
  }
  return ratio;
}

/** Refuses a prompt longer than the model takes. */
function checkPrompt(request: VideoRequest, rules: VideoRules): void {
  if (request.prompt.length > rules.promptMaxChars) {
    throw invalidRequest(
      `prompt must be at most ${
        rules.promptMaxChars.toLocaleString("en")
      } characters for the model '${request.model}'; it has ${request.prompt.length}`,
      "prompt",
    );
  }
}

/**
 * The digest of the whole request as it will run: every field with its defaults applied, and
 * each file's field, name, size and the SHA-256 of its bytes.
 */
function digestOf(request: VideoRequest, ratio: string, files: UploadedFile[]): Promise<string> {
  return requestDigest({
    kind: "video",
    model: request.model,
    prompt: request.prompt,
    duration: request.duration,
    ratio,
    files: [...files].sort((a, b) => (a.field < b.field ? -1 : 1)).map((file) => ({
      field: file.field,
      filename: file.filename,
      size: file.size,
      sha256: file.sha256,
    })),
  });
}

/** The task an Idempotency-Key made earlier for this owner, if any (409 for another request). */
async function earlierTask(
  gateway: Gateway,
  taskId: string,
  expected: { owner: string; wallet: string; digest: string; request: VideoRequest },
): Promise<TaskRecord<VideoTaskInput> | null> {
  return replayOf(await gateway.tasks.get<VideoTaskInput>(taskId), {
    owner: expected.owner,
    wallet: expected.wallet,
    kind: "video",
    digest: expected.digest,
    what: "video request",
    // Tasks written before digests were kept compared the model and prompt only.
    sameAsUndigested: (task) =>
      task.input.job.model === expected.request.model &&
      task.input.job.prompt === expected.request.prompt,
  });
}

/**
 * Accepts a video request as a task. With `idempotencyKey`, a repeat of the same request by the
 * same owner answers the task made the first time, with no second charge; the same key with any
 * other request (another field, another file) is 409 `idempotency_key_reused`.
 */
export async function submitVideoTask(
  scope: RequestScope,
  input: {
    request: VideoRequest;
    files: UploadedFile[];
    idempotencyKey?: string;
    /** The client's callback_url (checked against the webhook endpoints before any hold). */
    callbackUrl?: string;
  },
): Promise<VideoSubmission> {
  const priced = await checkAndPrice(scope, input);
  return "replayed" in priced ? priced : await storeAndSubmit(scope, priced);
}

/** A video request checked and priced: all its task needs but the reference files stored. */
interface PricedVideo {
  request: VideoRequest;
  price: VideoPrice;
  ratio: string;
  owner: string;
  taskId: string;
  /** Set with an Idempotency-Key: the digest of the whole request. */
  digest: string | null;
  callback: TaskCallback | null;
  files: CheckedFile[];
  durationReader: DurationReaderName | null;
  billed: { durationSeconds: number; referenceSeconds: number[] };
  /** The key's price tier at submission: the hold is the task's whole price. */
  tier: PriceTier;
  bill: VideoBill;
}

/** The request with the duration its upstreams make when the client sent none. */
function withDefaultDuration(
  gateway: Gateway,
  { request, group }: { request: VideoRequest; group: string },
): VideoRequest {
  if (!request.durationDefaulted) return request;
  const { durationDefaulted: _, ...rest } = request;
  return {
    ...rest,
    duration: defaultVideoDuration(gateway.registry.channels, { model: request.model, group }),
  };
}

/**
 * Checks the request (model, callback, prompt, ratio, files, reference durations) and prices
 * it; or answers the task an earlier request with the same Idempotency-Key made. Nothing is
 * stored or held here.
 */
async function checkAndPrice(
  scope: RequestScope,
  input: {
    request: VideoRequest;
    files: UploadedFile[];
    idempotencyKey?: string;
    callbackUrl?: string;
  },
): Promise<PricedVideo | VideoSubmission> {
  const { gateway, key } = scope;
  const { files, idempotencyKey } = input;
  const request = withDefaultDuration(gateway, { request: input.request, group: key.group });
  const { model } = resolveModel(gateway.registry, {
    key,
    model: request.model,
    kind: "video",
  });
  const callback = input.callbackUrl === undefined
    ? null
    : await gateway.webhooks.taskCallback(key, input.callbackUrl);
  const price = model.price as VideoPrice;
  const rules = videoRulesOf(model);
  checkPrompt(request, rules);
  const ratio = checkRatio(request, rules);
  const owner = ownerOf(key);
  const digest = idempotencyKey ? await digestOf(request, ratio, files) : null;
  const taskId = idempotencyKey
    ? await idempotentTaskId({ owner, kind: "video", key: idempotencyKey })
    : `task_${randomBase62(24)}`;
  if (idempotencyKey) {
    const earlier = await earlierTask(gateway, taskId, {
      owner,
      wallet: walletOf(key),
      digest: digest!,
      request,
    });
    if (earlier) return { task: earlier, replayed: true };
  }

  const checked = await checkFiles(files, rules);
  checkVideoAsk(gateway.registry.channels, {
    model: request.model,
    group: key.group,
    ask: { duration: request.duration, ratio, references: checked },
  });
  // Durations are billed on per-second models, so those always read them.
  const durationReader = rules.probeReferences || !isPerTask(price)
    ? await probeDurations(gateway, checked, { rules, requestId: scope.context.id })
    : null;
  const tier = gateway.priceTierOf(key);
  const billed = {
    durationSeconds: request.duration,
    referenceSeconds: checked.flatMap((file) => file.seconds === null ? [] : [file.seconds]),
  };
  return {
    request,
    price,
    ratio,
    owner,
    taskId,
    digest,
    callback,
    files: checked,
    durationReader,
    billed,
    tier,
    bill: videoBill(price, billed, tier),
  };
}

/**
 * Keeps the reference files in the media store, then holds the money and writes the task in
 * one commit. On any failure the stored files are deleted; a task that a concurrent request
 * with the same Idempotency-Key made meanwhile is answered instead.
 */
async function storeAndSubmit(scope: RequestScope, priced: PricedVideo): Promise<VideoSubmission> {
  const { gateway, key } = scope;
  const { price, owner, taskId, digest, request } = priced;
  const stored: MediaRecord[] = [];
  try {
    const references = await storeReferences(gateway, priced.files, stored);
    const task = videoTaskRecord(scope, priced, references);
    const hold = await gateway.tasks.create(task, {
      key,
      idempotent: digest !== null,
      // A per-second task costs less with a shorter duration; a fixed price does not move.
      remedy: isPerTask(price) ? undefined : "ask for a shorter duration or shorter references",
    });
    scope.context.task = {
      id: task.id,
      receipt: receiptOf(videoReceipt(price, priced.billed, priced.tier), {
        entries: [hold],
        status: "held",
        held: task.held,
      }),
    };
    return { task, replayed: false };
  } catch (error) {
    await Promise.all(stored.map((record) => gateway.media.delete(record).catch(() => {})));
    if (digest !== null) {
      const earlier = await earlierTask(gateway, taskId, {
        owner,
        wallet: walletOf(key),
        digest,
        request,
      });
      if (earlier) return { task: earlier, replayed: true };
    }
    throw error;
  }
}

/** Puts each file in the media store (each record also into `stored`, for the clean-up). */
async function storeReferences(
  gateway: Gateway,
  files: CheckedFile[],
  stored: MediaRecord[],
): Promise<VideoReference[]> {
  const ttlMs = Math.max(gateway.options.mediaTtlMs, gateway.options.video.timeoutMs + 3_600_000);
  const references: VideoReference[] = [];
  for (const file of files) {
    const record = await gateway.media.putChunks(
      file.bytes ? [file.bytes] : fileChunks(file.path!),
      {
        contentType: file.contentType,
        owner: "gateway",
        ttlMs,
      },
    );
    stored.push(record);
    references.push({
      field: file.field,
      kind: file.kind,
      media_id: record.id,
      content_type: file.contentType,
      filename: file.filename || file.field,
      seconds: file.seconds,
    });
  }
  return references;
}

/** The new task of `priced`, with its stored `references`. */
function videoTaskRecord(
  scope: RequestScope,
  priced: PricedVideo,
  references: VideoReference[],
): TaskRecord<VideoTaskInput> {
  const { key } = scope;
  const { request, bill } = priced;
  return newTaskRecord<VideoTaskInput>({
    id: priced.taskId,
    kind: "video",
    action: "generations",
    owner: priced.owner,
    key_id: key.id,
    wallet_id: walletOf(key),
    model: request.model,
    progress: "20%",
    held: bill.amount,
    request_digest: priced.digest,
    request_id: scope.context.id,
    callback: priced.callback,
    input: {
      job: {
        model: request.model,
        prompt: request.prompt,
        duration: request.duration,
        ratio: priced.ratio,
        references,
      },
      group: key.group,
      public_url: scope.publicUrl,
      billed_ms: bill.billedMs,
      refund_percent: bill.refundPercent,
      duration_reader: priced.durationReader,
    },
  });
}
