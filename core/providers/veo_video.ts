/**
 * The `veo` upstream: Google's Veo on the Gemini API. A task is
 * `POST {base_url}/models/{model}:predictLongRunning` (base_url ends in `/v1beta`) with
 * `{instances: [{prompt, image?}], parameters: {aspectRatio?, durationSeconds}}` and the key in
 * `x-goog-api-key`; it answers an operation whose `name` is read with `GET {base_url}/{name}`
 * until `done`. The video's `uri` needs the key too, so the gateway fetches it (only from the
 * base URL's own host: the key never goes elsewhere) and hosts it. A channel test reads the
 * model (`GET {base_url}/models/{model}`).
 */

import { readLenientJson } from "../util/lenient_schema.ts";
import { veoModelSchema, veoOperationSchema } from "./veo_video_schemas.ts";
import { UpstreamAttemptError } from "../upstream/attempt.ts";
import type { UpstreamRequest } from "../upstream/call.ts";
import { GEMINI_ERRORS } from "./gemini.ts";
import type { UpstreamVideoState, VideoAsk, VideoJob, VideoRefusal } from "../jobs/video_job.ts";
import {
  FinalDownloadError,
  type Provider,
  type UpstreamTarget,
  type VideoReferences,
} from "./provider.ts";
import { onlyOneImage } from "./video_refusals.ts";

/** The lengths a Veo model makes: Veo 2 any whole 5 to 8 seconds, later ones 4, 6 or 8. */
export function veoSeconds(model: string): number[] {
  return /^(models\/)?veo-2\b/.test(model) ? [5, 6, 7, 8] : [4, 6, 8];
}

/** The aspect ratio of each ratio Veo makes; `adaptive` leaves it to the upstream (16:9). */
const VEO_RATIOS: Record<string, string | undefined> = {
  "16:9": "16:9",
  "9:16": "9:16",
  "adaptive": undefined,
};

export function veoRefusal(model: string, ask: VideoAsk): VideoRefusal | undefined {
  const reference = onlyOneImage(ask, "veo");
  if (reference) return reference;
  const seconds = veoSeconds(model);
  if (!seconds.includes(ask.duration)) {
    return {
      param: "duration",
      message: `duration must be ${seconds.join(", ")} seconds for this model (its upstream, ` +
        `Veo, makes only those); it is ${ask.duration}`,
    };
  }
  if (!Object.hasOwn(VEO_RATIOS, ask.ratio)) {
    return {
      param: "ratio",
      message: `ratio must be 16:9, 9:16 or adaptive for this model (its upstream, Veo); ` +
        `it is '${ask.ratio}'`,
    };
  }
  return undefined;
}

function keyHeaders(apiKey: string): Record<string, string> {
  return { "x-goog-api-key": apiKey };
}

export async function buildVeoCreate(
  { channel, apiKey, model }: UpstreamTarget,
  input: { job: VideoJob; references: VideoReferences },
): Promise<UpstreamRequest> {
  const { job, references } = input;
  const instance: Record<string, unknown> = { prompt: job.prompt };
  const image = job.references.find((reference) => reference.kind === "image");
  if (image) {
    const bytes = new Uint8Array(await (await references.fileOf(image)).arrayBuffer());
    instance.image = { bytesBase64Encoded: bytes.toBase64(), mimeType: image.content_type };
  }
  const parameters: Record<string, unknown> = { durationSeconds: job.duration };
  const aspectRatio = VEO_RATIOS[job.ratio];
  if (aspectRatio) parameters.aspectRatio = aspectRatio;
  return {
    url: `${channel.base_url}/models/${encodeURIComponent(model)}:predictLongRunning`,
    init: {
      method: "POST",
      headers: { ...keyHeaders(apiKey), "content-type": "application/json" },
      body: JSON.stringify({ instances: [instance], parameters }),
    },
  };
}

/** An operation name as Google writes it (`models/{m}/operations/{id}`): nothing else is sent. */
const OPERATION_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)+$/;

/** The operation's name in the create answer. */
export function readVeoCreated(text: string): string {
  const { name } = readLenientJson(veoOperationSchema, text);
  if (!name || !OPERATION_NAME.test(name)) {
    throw new UpstreamAttemptError("The upstream's create answer has no operation name", {
      retryable: true,
    });
  }
  return name;
}

export function buildVeoPoll({ channel, apiKey }: UpstreamTarget, name: string): UpstreamRequest {
  if (!OPERATION_NAME.test(name)) {
    throw new UpstreamAttemptError("The task's operation name is not one Google writes", {
      retryable: false,
    });
  }
  return {
    url: `${channel.base_url}/${name}`,
    init: { method: "GET", headers: keyHeaders(apiKey) },
  };
}

export function readVeoOperation(text: string): UpstreamVideoState {
  const operation = readLenientJson(veoOperationSchema, text);
  if (operation.done !== true) return { state: "running" };
  if (operation.error) {
    const detail = [operation.error.code, operation.error.message].filter((part) => part);
    return {
      state: "failed",
      reason: detail.length ? `upstream: ${detail.join(": ")}` : "upstream: generation failed",
    };
  }
  const answer = operation.response?.generateVideoResponse;
  const uri = answer?.generatedSamples?.[0]?.video?.uri;
  if (uri) return { state: "succeeded", download: uri };
  const filtered = answer?.raiMediaFilteredReasons ?? [];
  return {
    state: "failed",
    reason: filtered.length
      ? `upstream: filtered: ${filtered.join("; ")}`
      : "upstream: the operation finished without a video",
  };
}

/**
 * The call that fetches the video at `uri` with the key, only on the base URL's host (any other
 * would be handed the channel's key): a URI elsewhere fails the task.
 */
export function buildVeoDownload(
  { channel, apiKey }: UpstreamTarget,
  uri: string,
): UpstreamRequest {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new FinalDownloadError("the upstream's video URI is not a valid absolute URL");
  }
  if (url.origin !== new URL(channel.base_url).origin) {
    throw new FinalDownloadError(
      "the upstream's video URI is on another host than the channel's base_url; " +
        "the channel's key is not sent there",
    );
  }
  return { url: url.href, init: { method: "GET", headers: keyHeaders(apiKey) } };
}

export function buildVeoProbe({ channel, apiKey, model }: UpstreamTarget): UpstreamRequest {
  return {
    url: `${channel.base_url}/models/${encodeURIComponent(model)}`,
    init: { method: "GET", headers: keyHeaders(apiKey) },
  };
}

export function readVeoProbe(text: string): void {
  if (!readLenientJson(veoModelSchema, text).name) {
    throw new UpstreamAttemptError("The upstream's model answer has no name", { retryable: true });
  }
}

export const veoVideoProvider: Provider = {
  kinds: ["video"],
  baseUrlExample: "https://generativelanguage.googleapis.com/v1beta",
  appendedPaths: /\/models(\/[^/]*)?$|:predictLongRunning$/,
  errors: GEMINI_ERRORS,
  video: {
    create: buildVeoCreate,
    readCreated: readVeoCreated,
    poll: (target, name) => Promise.resolve().then(() => buildVeoPoll(target, name)),
    readTask: readVeoOperation,
    refusal: veoRefusal,
    defaultDuration: 8,
    download: (target, uri) => Promise.resolve().then(() => buildVeoDownload(target, uri)),
    probe: {
      call: "read the model (no video made)",
      request: (target) => Promise.resolve(buildVeoProbe(target)),
      read: readVeoProbe,
    },
  },
};
