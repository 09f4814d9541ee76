/**
 * The image interface: POST /v1/images/generations (JSON), POST /v1/images/edits (multipart),
 * GET /v1/images/tasks/{task_id}. `X-Gateway-Async-Task: true|1` turns a request into a task;
 * with `Idempotency-Key`, a repeated task submission answers the task it already made.
 */

import { walletOf } from "../core/billing/ledger.ts";
import { Hono } from "hono";
import type { Context } from "hono";
import { GatewayError, invalidRequest } from "../core/errors.ts";
import type { Gateway } from "../core/gateway.ts";
import { ownerOf } from "../core/keys/key_schema.ts";
import { checkEditInputs } from "../core/images/edit_inputs.ts";
import type { ResponseFormat } from "../core/images/deliver_images.ts";
import type { ImageJob, InputImage } from "../core/jobs/image_job.ts";
import { serveImages, submitImageTask } from "../core/images/image_service.ts";
import {
  editFieldsSchema,
  generationRequestSchema,
  KNOWN_GENERATION_FIELDS,
} from "../core/images/request_schema.ts";
import { imageTaskView } from "../core/tasks/task_views.ts";
import { type AppEnv, requireKey } from "./middleware.ts";
import { readJsonBody, validate } from "./validation.ts";
import { type MultipartFile, readMultipartEntries } from "./multipart_body.ts";
import { idempotencyKeyOf } from "./idempotency_key.ts";
import { idParam } from "./params.ts";
import { callbackNeedsTask, callbackUrlOf, withCallbackUrl } from "./callback_url.ts";
import { declareRoute, jsonAnswer, serveRoute } from "./openapi/declare_route.ts";
import { headerList } from "../core/util/header_value.ts";

/** Largest edit upload: 16 images and a mask of under 4 MB each, plus the text fields. */
const MAX_EDIT_BODY_BYTES = 70 * 1024 * 1024;

/** Whether the request asks for a task; refuses values other than true/1/false/0. */
function wantsTask(c: Context<AppEnv>): boolean {
  const value = c.req.header("x-gateway-async-task")?.trim().toLowerCase();
  if (value === undefined || value === "" || value === "false" || value === "0") return false;
  if (value === "true" || value === "1") return true;
  throw invalidRequest(
    `X-Gateway-Async-Task must be 'true' or '1' (or absent), got '${value}'`,
    "X-Gateway-Async-Task",
  );
}

/** The answer to an image request: a task, or the images. */
async function answer(
  c: Context<AppEnv>,
  request: { job: ImageJob; format: ResponseFormat; ignoredFields: string[]; callbackUrl?: string },
): Promise<Response> {
  const { job, format, ignoredFields, callbackUrl } = request;
  const context = c.get("context");
  context.model = job.model;
  if (wantsTask(c)) {
    const ignored = ignoredFields.length
      ? { "x-gateway-ignored-fields": headerList(ignoredFields) }
      : undefined;
    const { task, replayed } = await submitImageTask(c.get("scope"), {
      job,
      format,
      idempotencyKey: idempotencyKeyOf(c.req.header("idempotency-key")),
      callbackUrl,
    });
    return c.json(
      {
        code: "success",
        message: "",
        data: { task_id: task.id, status: task.status },
      },
      200,
      { ...ignored, ...(replayed ? { "x-gateway-idempotent-replay": "true" } : {}) },
    );
  }
  if (callbackUrl !== undefined) throw callbackNeedsTask();
  const result = await serveImages(c.get("scope"), { job, format, ignoredFields });
  return c.json(result.body, 200, result.headers);
}

function fileOf(value: string | MultipartFile, field: string): InputImage {
  if (typeof value === "string") {
    throw invalidRequest(`${field} must be a file upload, not a text field`, field);
  }
  return { bytes: value.bytes, mimeType: "image/png", filename: value.filename || `${field}.png` };
}

/** The edit's multipart parts in order (at most MAX_MULTIPART_PARTS, see multipart_body.ts). */
async function readForm(c: Context<AppEnv>): Promise<Array<[string, string | MultipartFile]>> {
  const type = c.req.header("content-type") ?? "";
  if (!/^multipart\/form-data/i.test(type)) {
    throw invalidRequest(
      "An image edit is sent as multipart/form-data (fields image, mask, prompt, …)",
      undefined,
      "invalid_content_type",
    );
  }
  const declared = Number(c.req.header("content-length") ?? "NaN");
  if (declared > MAX_EDIT_BODY_BYTES) throw editTooLarge();
  return await readMultipartEntries(c.req.raw, {
    maxFileBytes: MAX_EDIT_BODY_BYTES,
    maxTotalBytes: MAX_EDIT_BODY_BYTES,
    fileTooLarge: editTooLarge,
  });
}

const editTooLarge = () =>
  new GatewayError(
    "request_too_large",
    413,
    `The request body is larger than the limit of ${MAX_EDIT_BODY_BYTES} bytes`,
  );

const imageTaskNotFound = (taskId: string) =>
  new GatewayError("task_not_found", 404, `No image task '${taskId}' for this key`);

const generations = declareRoute({
  method: "post",
  path: "/v1/images/generations",
  tag: "images",
  summary: "Generate images (OpenAI Images); `X-Gateway-Async-Task: true` makes a task",
  security: "openai",
  errors: "openai",
  body: { name: "ImageGenerationRequest", schema: withCallbackUrl(generationRequestSchema) },
  answers: { "200": jsonAnswer("{created, data: [{url | b64_json}]}, or a task") },
});

const edits = declareRoute({
  method: "post",
  path: "/v1/images/edits",
  tag: "images",
  summary: "Edit images (OpenAI Images): PNGs and an optional mask as multipart",
  security: "openai",
  errors: "openai",
  body: {
    name: "ImageEditFields",
    schema: withCallbackUrl(editFieldsSchema),
    files: {
      image: "the PNG(s) to edit; repeat the field (or `image[]`) for several",
      mask: "an optional PNG mask",
    },
  },
  answers: { "200": jsonAnswer("{created, data: [{url | b64_json}]}, or a task") },
});

const imageTask = declareRoute({
  method: "get",
  path: "/v1/images/tasks/{task_id}",
  tag: "images",
  summary: "An image task's status and results",
  security: "openai",
  errors: "openai",
  answers: { "200": jsonAnswer("{code, message, data: {task_id, status, …}}") },
});

/** The image routes. */
export function imageRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();

  serveRoute(app, generations, requireKey(gateway, "openai"), async (c) => {
    const body = await readJsonBody(c.req.raw, gateway.options.maxBodyBytes);
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw invalidRequest("The request body must be a JSON object");
    }
    const { callback_url, ...fields } = body as Record<string, unknown>;
    const callbackUrl = callbackUrlOf(callback_url);
    const request = validate(generationRequestSchema, fields);
    const ignored = Object.keys(fields).filter((field) => !KNOWN_GENERATION_FIELDS.has(field));
    const job: ImageJob = {
      action: "generations",
      model: request.model,
      prompt: request.prompt,
      n: request.n,
      size: request.size,
      quality: request.quality,
      user: request.user,
      images: [],
    };
    return await answer(c, {
      job,
      format: request.response_format,
      ignoredFields: ignored,
      callbackUrl,
    });
  });

  serveRoute(app, edits, requireKey(gateway, "openai"), async (c) => {
    const form = await readForm(c);
    const text: Record<string, string> = {};
    const ignored: string[] = [];
    const callbackUrl = callbackUrlOf(form.find(([name]) => name === "callback_url")?.[1]);
    for (const [name, value] of form) {
      if (name === "image" || name === "image[]" || name === "mask") continue;
      if (name === "callback_url") continue;
      if (typeof value !== "string") {
        throw invalidRequest(`${name} must be a text field, not a file`, name);
      }
      if (editFieldsSchema.shape[name as keyof typeof editFieldsSchema.shape]) text[name] = value;
      else ignored.push(name);
    }
    const fields = validate(editFieldsSchema, text);
    const images = form.filter(([name]) => name === "image").concat(
      form.filter(([name]) => name === "image[]"),
    ).map(([, value]) => fileOf(value, "image"));
    const masks = form.filter(([name]) => name === "mask");
    if (masks.length > 1) throw invalidRequest("Send at most one mask", "mask");
    const mask = masks.length ? fileOf(masks[0][1], "mask") : undefined;
    checkEditInputs(images, mask);
    const job: ImageJob = {
      action: "edits",
      model: fields.model,
      prompt: fields.prompt,
      n: fields.n,
      size: fields.size,
      quality: fields.quality,
      user: fields.user,
      images,
      mask,
    };
    return await answer(c, {
      job,
      format: fields.response_format,
      ignoredFields: ignored,
      callbackUrl,
    });
  });

  serveRoute(app, imageTask, requireKey(gateway, "openai"), async (c) => {
    const taskId = idParam(c, "task_id", { shape: "task", notFound: imageTaskNotFound });
    const task = await gateway.tasks.getOwned(taskId, {
      owner: ownerOf(c.get("key")),
      wallet: walletOf(c.get("key")),
      kind: "image",
    });
    if (!task) throw imageTaskNotFound(taskId);
    return c.json({ code: "success", message: "", data: imageTaskView(task) });
  });

  return app;
}
