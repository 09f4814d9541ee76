/**
 * The `gateway-video` upstream: another gateway speaking this same API (chaining gateways).
 * `POST {base_url}/video/generations` as multipart with the reference files re-sent, and
 * `GET {base_url}/video/generations/{id}`. The submission carries `Idempotency-Key: <task id>`,
 * so a retried submission after a crash finds the task it already made instead of a second one.
 * A channel test reads `GET {base_url}/models/{model}`.
 */

import { readLenientJson } from "../util/lenient_schema.ts";
import { gatewayModelSchema, gatewayVideoTaskSchema } from "./gateway_video_schemas.ts";
import { UpstreamAttemptError } from "../upstream/attempt.ts";
import type { UpstreamRequest } from "../upstream/call.ts";
import { OPENAI_ERRORS } from "./openai_errors.ts";
import { type UpstreamVideoState, type VideoJob } from "../jobs/video_job.ts";
import {
  type Provider,
  readCreatedTaskId,
  type UpstreamTarget,
  type VideoReferences,
} from "./provider.ts";

/** The create request of `job`; `fileOf` reads each reference's bytes from the media store. */
export async function buildGatewayVideoCreate(
  { channel, apiKey, model }: UpstreamTarget,
  input: { job: VideoJob; references: VideoReferences },
): Promise<UpstreamRequest> {
  const { job, references } = input;
  const form = new FormData();
  form.set("model", model);
  form.set("prompt", job.prompt);
  form.set("duration", String(job.duration));
  form.set("ratio", job.ratio);
  for (const reference of job.references) {
    form.set(reference.field, await references.fileOf(reference), reference.filename);
  }
  return {
    url: `${channel.base_url}/video/generations`,
    init: {
      method: "POST",
      headers: {
        authorization: `Bearer ${apiKey}`,
        "idempotency-key": references.idempotencyKey,
      },
      body: form,
    },
  };
}

export function buildGatewayVideoPoll(
  { channel, apiKey }: UpstreamTarget,
  upstreamId: string,
): UpstreamRequest {
  return {
    url: `${channel.base_url}/video/generations/${encodeURIComponent(upstreamId)}`,
    init: { method: "GET", headers: { authorization: `Bearer ${apiKey}` } },
  };
}

/**
 * The channel test's call: the model as the other gateway shows it to this key
 * (`GET {base_url}/models/{model}`). It proves the key, the address and that the key may use the
 * model there, and makes no task (a task there is a billed video).
 */
export function buildGatewayVideoProbe(
  { channel, apiKey, model }: UpstreamTarget,
): UpstreamRequest {
  return {
    url: `${channel.base_url}/models/${encodeURIComponent(model)}`,
    init: { method: "GET", headers: { authorization: `Bearer ${apiKey}` } },
  };
}

/** The model's answer carries its id; anything else is not a gateway's model route. */
export function readGatewayVideoProbe(text: string): void {
  if (readLenientJson(gatewayModelSchema, text).id === undefined) {
    throw new UpstreamAttemptError("The upstream's model answer has no id", { retryable: true });
  }
}

export function readGatewayVideoTask(text: string): UpstreamVideoState {
  const { data } = readLenientJson(gatewayVideoTaskSchema, text);
  if (data?.status === undefined) {
    throw new UpstreamAttemptError("The upstream's task answer has no status", {
      retryable: true,
    });
  }
  const progress = data.progress;
  switch (data.status) {
    case "QUEUED":
      return { state: "queued", progress };
    case "SUCCESS": {
      const url = data.data?.video_url ?? data.result_url;
      if (typeof url === "string" && url !== "") return { state: "succeeded", videoUrl: url };
      return { state: "failed", reason: "the upstream finished without a video URL" };
    }
    case "FAILURE":
      return {
        state: "failed",
        reason: `upstream: ${data.fail_reason ?? "generation failed"}`,
      };
    default:
      return { state: "running", progress };
  }
}

export const gatewayVideoProvider: Provider = {
  kinds: ["video"],
  baseUrlExample: "https://other-gateway.example/v1",
  appendedPaths: /\/video\/generations$/,
  errors: OPENAI_ERRORS,
  video: {
    idempotent: true,
    create: buildGatewayVideoCreate,
    readCreated: readCreatedTaskId,
    poll: (target, upstreamId) => Promise.resolve(buildGatewayVideoPoll(target, upstreamId)),
    readTask: readGatewayVideoTask,
    probe: {
      call: "read the model on the other gateway (no task made)",
      request: (target) => Promise.resolve(buildGatewayVideoProbe(target)),
      read: readGatewayVideoProbe,
    },
  },
};
