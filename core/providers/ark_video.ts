/**
 * The `ark-video` upstream: ModelArk's content-generation task API. A task is created with
 * `POST {base_url}/contents/generations/tasks` (base_url ends in `/api/v3`, as the Ark SDK takes
 * it) and read with `GET …/tasks/{id}`. References go in the `content` array as URLs the upstream
 * fetches, each with its role; resolution, ratio and duration are top-level parameters. A channel
 * test lists tasks (`GET …/tasks?page_size=1`).
 */

import { readLenientJson } from "../util/lenient_schema.ts";
import { arkTaskListSchema, arkTaskSchema } from "./ark_video_schemas.ts";
import { UpstreamAttemptError } from "../upstream/attempt.ts";
import type { UpstreamRequest } from "../upstream/call.ts";
import { OPENAI_ERRORS } from "./openai_errors.ts";
import {
  resolutionFor,
  type UpstreamVideoState,
  type VideoJob,
  type VideoReference,
} from "../jobs/video_job.ts";
import { bearerJson, type Provider, readCreatedTaskId, type UpstreamTarget } from "./provider.ts";

type ContentItem =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string }; role: "reference_image" }
  | { type: "video_url"; video_url: { url: string }; role: "reference_video" }
  | { type: "audio_url"; audio_url: { url: string }; role: "reference_audio" };

function contentItem(reference: VideoReference, url: string): ContentItem {
  switch (reference.kind) {
    case "image":
      return { type: "image_url", image_url: { url }, role: "reference_image" };
    case "video":
      return { type: "video_url", video_url: { url }, role: "reference_video" };
    case "audio":
      return { type: "audio_url", audio_url: { url }, role: "reference_audio" };
  }
}

/**
 * The create-task request of `job`; `urlOf` gives each reference's hosted URL. The resolution
 * is the model name's, else the channel's `video_resolution` (the spec's route configuration).
 */
export function buildArkCreate(
  { channel, apiKey, model }: UpstreamTarget,
  input: { job: VideoJob; urlOf: (reference: VideoReference) => string },
): UpstreamRequest {
  const { job, urlOf } = input;
  const content: ContentItem[] = [
    { type: "text", text: job.prompt },
    ...job.references.map((reference) => contentItem(reference, urlOf(reference))),
  ];
  const body = {
    model,
    content,
    resolution: resolutionFor(job.model, channel.video_resolution),
    ratio: job.ratio,
    duration: job.duration,
  };
  return {
    url: `${channel.base_url}/contents/generations/tasks`,
    init: { method: "POST", headers: bearerJson(apiKey), body: JSON.stringify(body) },
  };
}

export function buildArkPoll({ channel, apiKey }: UpstreamTarget, upstreamId: string) {
  return {
    url: `${channel.base_url}/contents/generations/tasks/${encodeURIComponent(upstreamId)}`,
    init: { method: "GET", headers: { authorization: `Bearer ${apiKey}` } },
  };
}

/**
 * The channel test's call: the first page of one task from the task list, filtered by the model
 * (keys with custom permissions list only with a model named). It is the task API the gateway
 * uses, read with the channel's key, and it makes no task: a create, even cancelled at once, may
 * start and bill a video, and Ark cancels only queued tasks.
 */
export function buildArkProbe({ channel, apiKey, model }: UpstreamTarget): UpstreamRequest {
  const query = new URLSearchParams({ page_num: "1", page_size: "1", "filter.model": model });
  return {
    url: `${channel.base_url}/contents/generations/tasks?${query}`,
    init: { method: "GET", headers: { authorization: `Bearer ${apiKey}` } },
  };
}

/** A task-list answer is `{items: [...], total}`; anything else is not Ark's task API. */
export function readArkProbe(text: string): void {
  if (!readLenientJson(arkTaskListSchema, text).items) {
    throw new UpstreamAttemptError("The upstream's task list answer has no items", {
      retryable: true,
    });
  }
}

/** A task-query answer in neutral terms. */
export function readArkTask(text: string): UpstreamVideoState {
  const task = readLenientJson(arkTaskSchema, text);
  if (task.status === undefined) {
    throw new UpstreamAttemptError("The upstream's task answer has no status", {
      retryable: true,
    });
  }
  switch (task.status) {
    case "queued":
      return { state: "queued" };
    case "running":
      return { state: "running" };
    case "succeeded": {
      const url = task.content?.video_url;
      if (typeof url === "string" && url !== "") return { state: "succeeded", videoUrl: url };
      return { state: "failed", reason: "the upstream finished without a video URL" };
    }
    case "failed": {
      const error = task.error;
      const detail = [error?.code, error?.message].filter((part) => part !== undefined);
      return {
        state: "failed",
        reason: detail.length ? `upstream: ${detail.join(": ")}` : "upstream: generation failed",
      };
    }
    case "cancelled":
      return { state: "failed", reason: "upstream: the task was cancelled" };
    case "expired":
      return { state: "failed", reason: "upstream: the task expired" };
    default:
      return { state: "running" };
  }
}

export const arkVideoProvider: Provider = {
  kinds: ["video"],
  baseUrlExample: "https://ark.cn-beijing.volces.com/api/v3",
  appendedPaths: /\/contents\/generations\/tasks$/,
  errors: OPENAI_ERRORS,
  video: {
    create: (target, { job, references }) =>
      Promise.resolve(buildArkCreate(target, { job, urlOf: references.urlOf })),
    readCreated: readCreatedTaskId,
    poll: (target, upstreamId) => Promise.resolve(buildArkPoll(target, upstreamId)),
    readTask: readArkTask,
    probe: {
      call: "list tasks of the model, page size 1 (no task made)",
      request: (target) => Promise.resolve(buildArkProbe(target)),
      read: readArkProbe,
    },
  },
};
