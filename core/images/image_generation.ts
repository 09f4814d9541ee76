/**
 * Image generation and edits on the channels with image models: refuse what no channel's model can
 * serve, hold the price of `n` images, call with failover, deliver in the requested format, settle
 * for the images actually delivered (or release on failure). The synchronous path and the task
 * worker share it.
 */

import type { Channel } from "../channels/channel_schema.ts";
import { GatewayError, invalidRequest } from "../errors.ts";
import { upstreamModelName } from "../channels/routing.ts";
import type { Gateway } from "../gateway.ts";
import type { KeyRecord } from "../keys/key_schema.ts";
import { resolveModel } from "../channels/model_access.ts";
import { providerOf, upstreamTarget } from "../providers/provider_table.ts";
import type { AttemptRecord } from "../telemetry/request_log.ts";
import { type AttemptTrace, withFailover } from "../upstream/failover.ts";
import { builtRequest, callUpstream } from "../upstream/call.ts";
import type { ImageAttemptResult, ImageJob, UpstreamImage } from "../jobs/image_job.ts";
import { imageCost, type ImagePrice } from "../billing/image_price.ts";
import { imageReceipt } from "../billing/receipt.ts";

/**
 * The catalog entry and channel order for `job`, or why not; and what `count` of its images
 * cost the key (at its group's price tier) and their receipt's pricing.
 */
export function resolveImageModel(
  gateway: Gateway,
  { key, job }: { key: KeyRecord; job: ImageJob },
) {
  const resolved = resolveModel(gateway.registry, { key, model: job.model, kind: "image" });
  const { model } = resolved;
  const order = servingChannels(resolved.order, job);
  const price = model.price as ImagePrice;
  const tier = gateway.priceTierOf(key);
  return {
    model,
    order,
    costOf: (count: number) =>
      imageCost(price, { size: job.size, quality: job.quality, count }, tier),
    pricingOf: (count: number) => imageReceipt(price, { ...job, count }, tier),
  };
}

/**
 * The channels of `order` whose upstream model can serve `job` (see ImageProvider `refusal`);
 * a 400 naming the field when none can.
 */
export function servingChannels(order: readonly Channel[], job: ImageJob): Channel[] {
  let refused: { param: string; message: string } | undefined;
  const serving = order.filter((channel) => {
    const why = providerOf(channel).image?.refusal?.(upstreamModelName(channel, job.model), job);
    refused ??= why;
    return !why;
  });
  if (serving.length === 0 && refused) throw invalidRequest(refused.message, refused.param);
  return serving;
}

/**
 * One attempt of `job` on `channel`: the provider's calls (one, or one per image) at once,
 * keeping every image that came back; none is a failed attempt.
 */
export async function attemptImageJob(
  channel: Channel,
  job: ImageJob,
  options: { signal: AbortSignal; maxBytes: number; trace?: AttemptTrace },
): Promise<ImageAttemptResult> {
  const provider = providerOf(channel);
  const image = provider.image!;
  const requests = await builtRequest(
    image.requests(upstreamTarget(channel, job.model, options.trace), job),
  );
  const calls = requests.map((request) =>
    callUpstream(channel, request, { ...options, errors: provider.errors }).then(image.readImages)
  );
  const settled = await Promise.allSettled(calls);
  const images: UpstreamImage[] = settled.flatMap((result) =>
    result.status === "fulfilled" ? result.value : []
  );
  if (images.length === 0) throw (settled[0] as PromiseRejectedResult).reason;
  return {
    images: images.slice(0, job.n),
    ignoredFields: image.ignoredFields(job, upstreamModelName(channel, job.model)),
  };
}

/** Runs `job` over `order` with failover; each attempt goes to `log` when given. */
export function runImageJob(
  gateway: Gateway,
  order: readonly Channel[],
  { job, signal, log }: { job: ImageJob; signal: AbortSignal; log?: AttemptRecord[] },
): Promise<{ result: ImageAttemptResult; channel: Channel }> {
  return withFailover(
    order,
    (channel, trace) =>
      attemptImageJob(channel, job, {
        signal,
        trace,
        maxBytes: gateway.options.upstreamMaxBytes.media,
      }),
    gateway.failover(signal, log),
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
