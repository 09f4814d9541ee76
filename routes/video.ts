/**
 * The video interface: POST /v1/video/generations (multipart) answers `{id, status}` at once;
 * GET /v1/video/generations/{task_id} answers the task. `Idempotency-Key` makes a retried
 * submission answer the task it already made, with no second charge.
 */

import { walletOf } from "../core/billing/ledger.ts";
import { Hono } from "hono";
import { GatewayError } from "../core/errors.ts";
import type { Gateway } from "../core/gateway.ts";
import { ownerOf } from "../core/keys/key_schema.ts";
import type { TaskRecord } from "../core/tasks/task_record.ts";
import { videoTaskView } from "../core/tasks/task_views.ts";
import { KNOWN_VIDEO_FIELDS, videoFieldsSchema } from "../core/video/request_schema.ts";
import { secondsText } from "../core/billing/video_price.ts";
import { submitVideoTask, type VideoTaskInput } from "../core/video/video_service.ts";
import { largestReferenceBytes } from "../core/video/video_models.ts";
import { type AppEnv, requireKey } from "./middleware.ts";
import { validate } from "./validation.ts";
import { idempotencyKeyOf } from "./idempotency_key.ts";
import { readVideoUpload } from "./video_form.ts";
import { idParam } from "./params.ts";
import { callbackUrlOf, withCallbackUrl } from "./callback_url.ts";
import { declareRoute, jsonAnswer, serveRoute } from "./openapi/declare_route.ts";
import { headerList } from "../core/util/header_value.ts";

/** Headers saying what a task was charged. */
function billingHeaders(task: TaskRecord<VideoTaskInput>): Record<string, string> {
  const headers: Record<string, string> = {
    "x-gateway-billing": task.input.billed_ms === null ? "per_task" : "per_second",
    "x-gateway-cost-units": String(task.held),
  };
  if (task.input.billed_ms !== null) {
    headers["x-gateway-billed-seconds"] = secondsText(task.input.billed_ms);
  }
  if (task.input.duration_reader) {
    headers["x-gateway-duration-reader"] = task.input.duration_reader;
  }
  return headers;
}

const videoTaskNotFound = (taskId: string) =>
  new GatewayError("task_not_found", 404, `No video task '${taskId}' for this key`);

const submitVideo = declareRoute({
  method: "post",
  path: "/v1/video/generations",
  tag: "video",
  summary: "Submit a video task (multipart; reference files optional); `Idempotency-Key` honoured",
  security: "openai",
  errors: "openai",
  body: {
    name: "VideoFields",
    schema: withCallbackUrl(videoFieldsSchema),
    files: {
      image_1: "reference image",
      image_2: "reference image",
      image_3: "reference image",
      video: "reference video",
      audio: "reference audio",
    },
  },
  answers: { "200": jsonAnswer("{id, status: IN_PROGRESS}") },
});

const videoTask = declareRoute({
  method: "get",
  path: "/v1/video/generations/{task_id}",
  tag: "video",
  summary: "A video task's status, result URL and cost",
  security: "openai",
  errors: "openai",
  answers: {
    "200": jsonAnswer("{code, message, data: {task_id, status, progress, result_url, …}}"),
  },
});

export function videoRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();

  serveRoute(app, submitVideo, requireKey(gateway, "openai"), async (c) => {
    const idempotencyKey = idempotencyKeyOf(c.req.header("idempotency-key"));
    await using upload = await readVideoUpload(c.req.raw, {
      limits: largestReferenceBytes(gateway.registry.models),
      toDisk: gateway.options.tempFiles,
    });
    const { callback_url, ...fields } = upload.fields;
    const callbackUrl = callbackUrlOf(callback_url);
    const request = {
      ...validate(videoFieldsSchema, fields),
      durationDefaulted: fields.duration === undefined,
    };
    c.get("context").model = request.model;
    const ignored = Object.keys(fields).filter((name) => !KNOWN_VIDEO_FIELDS.has(name));
    const { task, replayed } = await submitVideoTask(c.get("scope"), {
      request,
      files: upload.files,
      idempotencyKey,
      callbackUrl,
    });
    if (!replayed) c.get("context").durationReader = task.input.duration_reader ?? null;
    const headers = billingHeaders(task);
    if (ignored.length) headers["x-gateway-ignored-fields"] = headerList(ignored);
    if (replayed) headers["x-gateway-idempotent-replay"] = "true";
    return c.json({ id: task.id, status: "IN_PROGRESS" }, 200, headers);
  });

  serveRoute(app, videoTask, requireKey(gateway, "openai"), async (c) => {
    const taskId = idParam(c, "task_id", { shape: "task", notFound: videoTaskNotFound });
    const task = await gateway.tasks.getOwned<VideoTaskInput>(taskId, {
      owner: ownerOf(c.get("key")),
      wallet: walletOf(c.get("key")),
      kind: "video",
    });
    if (!task) throw videoTaskNotFound(taskId);
    return c.json(
      { code: "success", message: "", data: videoTaskView(task) },
      200,
      billingHeaders(task),
    );
  });

  return app;
}
