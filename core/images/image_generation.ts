/**
 * Image generation and edits on `openai-images` and `gemini` channels: hold the price of `n`
 * images, call with failover, deliver in the requested format, settle for the images actually
 * delivered (or release on failure). The synchronous path and the task worker share it.
 */

import type { Channel, ChannelType } from "../channel_schema.ts";
import { GatewayError } from "../errors.ts";
import type { Gateway } from "../gateway.ts";
import type { KeyRecord } from "../key_schema.ts";
import { resolveModel } from "../model_access.ts";
import { pickUpstreamKey, upstreamModelName } from "../routing.ts";
import {
  type AttemptRecord,
  type AttemptTrace,
  networkFailure,
  type UpstreamAttemptError,
  UpstreamCall,
  withFailover,
} from "../upstream.ts";
import { readOpenAIError } from "../providers/openai_chat.ts";
import { buildOpenAIImagesRequest, readOpenAIImagesAnswer } from "../providers/openai_images.ts";
import {
  buildGeminiRequest,
  geminiIgnoredImageFields,
  geminiImageBody,
  readGeminiError,
  readGeminiImageAnswer,
} from "../providers/gemini_images.ts";
import type { ImageAttemptResult, ImageJob, UpstreamImage } from "./image_job.ts";
import { type ImagePrice, imageUnitPrice } from "./price.ts";

export const IMAGE_CHANNEL_TYPES: readonly ChannelType[] = ["openai-images", "gemini"];

/** The catalog entry, channel order and price of one image for `job`, or why not. */
export function resolveImageModel(gateway: Gateway, key: KeyRecord, job: ImageJob) {
  const { model, order } = resolveModel(gateway, key, job.model, "image", IMAGE_CHANNEL_TYPES);
  return {
    model,
    order,
    unitPrice: imageUnitPrice(model.price as ImagePrice, job.size, job.quality),
  };
}

/** One non-streaming upstream call with the channel's timeout; the answer's text. */
export async function callUpstream(
  channel: Channel,
  url: string,
  init: RequestInit,
  signal: AbortSignal,
  readError: (response: Response) => Promise<UpstreamAttemptError>,
  trace?: AttemptTrace,
): Promise<string> {
  if (trace) trace.url = url;
  const call = new UpstreamCall(channel.timeout_ms, signal);
  try {
    const response = await fetch(url, { ...init, signal: call.signal });
    if (!response.ok) throw await readError(response);
    const text = await response.text();
    call.done();
    return text;
  } catch (error) {
    call.abort();
    throw networkFailure(error, call);
  }
}

/** One attempt of `job` on `channel`. */
export async function attemptImageJob(
  channel: Channel,
  job: ImageJob,
  signal: AbortSignal,
  trace?: AttemptTrace,
): Promise<ImageAttemptResult> {
  const upstreamModel = upstreamModelName(channel, job.model);
  if (channel.type === "openai-images") {
    const { url, init } = buildOpenAIImagesRequest(
      channel,
      pickUpstreamKey(channel),
      upstreamModel,
      job,
    );
    const text = await callUpstream(channel, url, init, signal, readOpenAIError, trace);
    return { images: readOpenAIImagesAnswer(text), ignoredFields: [] };
  }
  // Gemini draws one image per call: n calls at once, keeping every image that came back.
  const body = geminiImageBody(job);
  const calls = Array.from({ length: job.n }, () => {
    const { url, init } = buildGeminiRequest(
      channel,
      pickUpstreamKey(channel),
      upstreamModel,
      body,
    );
    return callUpstream(channel, url, init, signal, readGeminiError, trace)
      .then(readGeminiImageAnswer);
  });
  const settled = await Promise.allSettled(calls);
  const images: UpstreamImage[] = settled.flatMap((result) =>
    result.status === "fulfilled" ? result.value : []
  );
  if (images.length === 0) throw (settled[0] as PromiseRejectedResult).reason;
  return { images: images.slice(0, job.n), ignoredFields: geminiIgnoredImageFields(job) };
}

/** Runs `job` over `order` with failover; each attempt goes to `log` when given. */
export function runImageJob(
  gateway: Gateway,
  order: readonly Channel[],
  job: ImageJob,
  signal: AbortSignal,
  log?: AttemptRecord[],
): Promise<{ result: ImageAttemptResult; channel: Channel }> {
  return withFailover(
    order,
    (channel, trace) => attemptImageJob(channel, job, signal, trace),
    { maxAttempts: 1 + gateway.options.maxRetries, signal, metrics: gateway.metrics, log },
  );
}

/** Hosts a URL result may be fetched from when it must be returned as base64. */
export function fetchableHostsFor(gateway: Gateway, channel: Channel): Set<string> {
  const hosts = new Set<string>(gateway.options.mediaFetchHosts);
  hosts.add(new URL(channel.base_url).host);
  return hosts;
}

/** The error when every image failed delivery. */
export function undeliverable(failures: string[]): GatewayError {
  return new GatewayError(
    "upstream_image_undeliverable",
    502,
    `The upstream's images could not be delivered: ${failures[0] ?? "no image"}`,
  );
}
