/**
 * The `openai-video` upstream: OpenAI's Videos API (Sora). `POST {base_url}/videos` as multipart
 * (`model`, `prompt`, `seconds`, `size`, one `input_reference` image), read with
 * `GET …/videos/{id}`; the finished MP4 is `GET …/videos/{id}/content`, which needs the channel's
 * key, so the gateway fetches it and hosts it. A channel test lists one video
 * (`GET …/videos?limit=1`).
 */

import { readLenientJson } from "../util/lenient_schema.ts";
import { openAIVideoListSchema, openAIVideoSchema } from "./openai_video_schemas.ts";
import { UpstreamAttemptError } from "../upstream/attempt.ts";
import type { UpstreamRequest } from "../upstream/call.ts";
import { OPENAI_ERRORS } from "./openai_errors.ts";
import type { UpstreamVideoState, VideoAsk, VideoRefusal } from "../jobs/video_job.ts";
import {
  type Provider,
  readCreatedTaskId,
  type UpstreamTarget,
  type VideoReferences,
} from "./provider.ts";
import type { VideoJob } from "../jobs/video_job.ts";
import { onlyOneImage } from "./video_refusals.ts";

/** The lengths Sora makes, in seconds. */
export const SORA_SECONDS = [4, 8, 12] as const;

/** The size of each ratio Sora makes; `adaptive` leaves it to the upstream (720x1280). */
const SORA_SIZES: Record<string, string | undefined> = {
  "16:9": "1280x720",
  "9:16": "720x1280",
  "adaptive": undefined,
};

/** What Sora cannot make of `ask`: one reference image at most, its lengths, its ratios. */
export function soraRefusal(_model: string, ask: VideoAsk): VideoRefusal | undefined {
  const reference = onlyOneImage(ask, "openai-video (Sora) channels");
  if (reference) return reference;
  if (!(SORA_SECONDS as readonly number[]).includes(ask.duration)) {
    return {
      param: "duration",
      message:
        `duration must be ${SORA_SECONDS.join(", ")} seconds for this model (its upstream, ` +
        `Sora, makes only those); it is ${ask.duration}`,
    };
  }
  if (!Object.hasOwn(SORA_SIZES, ask.ratio)) {
    return {
      param: "ratio",
      message: `ratio must be 16:9, 9:16 or adaptive for this model (its upstream, Sora); ` +
        `it is '${ask.ratio}'`,
    };
  }
  return undefined;
}

export async function buildSoraCreate(
  { channel, apiKey, model }: UpstreamTarget,
  input: { job: VideoJob; references: VideoReferences },
): Promise<UpstreamRequest> {
  const { job, references } = input;
  const form = new FormData();
  form.set("model", model);
  form.set("prompt", job.prompt);
  form.set("seconds", String(job.duration));
  const size = SORA_SIZES[job.ratio];
  if (size) form.set("size", size);
  const image = job.references.find((reference) => reference.kind === "image");
  if (image) form.set("input_reference", await references.fileOf(image), image.filename);
  return {
    url: `${channel.base_url}/videos`,
    init: { method: "POST", headers: { authorization: `Bearer ${apiKey}` }, body: form },
  };
}

function soraGet({ channel, apiKey }: UpstreamTarget, path: string): UpstreamRequest {
  return {
    url: `${channel.base_url}${path}`,
    init: { method: "GET", headers: { authorization: `Bearer ${apiKey}` } },
  };
}

/** A video object in neutral terms; a completed one is fetched from `/content` by its id. */
export function readSoraVideo(text: string): UpstreamVideoState {
  const video = readLenientJson(openAIVideoSchema, text);
  if (video.status === undefined || !video.id) {
    throw new UpstreamAttemptError("The upstream's video answer has no id or status", {
      retryable: true,
    });
  }
  const progress = video.progress === undefined ? undefined : `${Math.round(video.progress)}%`;
  switch (video.status) {
    case "queued":
      return { state: "queued", progress };
    case "completed":
      return { state: "succeeded", download: video.id };
    case "failed": {
      const detail = [video.error?.code, video.error?.message].filter((part) => part);
      return {
        state: "failed",
        reason: detail.length ? `upstream: ${detail.join(": ")}` : "upstream: generation failed",
      };
    }
    default:
      return { state: "running", progress };
  }
}

export function readSoraProbe(text: string): void {
  if (!readLenientJson(openAIVideoListSchema, text).data) {
    throw new UpstreamAttemptError("The upstream's video list answer has no data", {
      retryable: true,
    });
  }
}

export const openAIVideoProvider: Provider = {
  kinds: ["video"],
  baseUrlExample: "https://api.openai.com/v1",
  appendedPaths: /\/videos$/,
  errors: OPENAI_ERRORS,
  video: {
    create: buildSoraCreate,
    readCreated: readCreatedTaskId,
    poll: (target, id) => Promise.resolve(soraGet(target, `/videos/${encodeURIComponent(id)}`)),
    readTask: readSoraVideo,
    refusal: soraRefusal,
    defaultDuration: 4,
    download: (target, id) =>
      Promise.resolve(soraGet(target, `/videos/${encodeURIComponent(id)}/content`)),
    probe: {
      call: "list videos, limit 1 (no video made)",
      request: (target) => Promise.resolve(soraGet(target, "/videos?limit=1")),
      read: readSoraProbe,
    },
  },
};
