/**
 * Turns what an upstream returned into what the client asked for. Base64 or a data URL (in
 * `b64_json` or in `url`: the provider reads both as the image itself) is hosted for `url` and
 * decoded for `b64_json`; a URL asked for as `b64_json` is fetched — only from the channel's own
 * host or the configured allowlist, with size and time limits — and encoded; a URL asked for as
 * `url` is passed on as the upstream gave it, when it is http(s) (any other scheme is not
 * delivered). Every image the gateway handles in bytes is judged from them: its type is what its
 * bytes are, never the upstream's label, and bytes that are not an image of a hosted type (HTML,
 * SVG, text, an unknown format) are not delivered.
 */

import { bytesOfBase64 } from "../util/base64.ts";
import { GatewayError } from "../errors.ts";
import { readLimited } from "../util/read_limited.ts";
import type { Gateway } from "../gateway.ts";
import type { UpstreamImage } from "../jobs/image_job.ts";
import { hostedExtension, MEDIA_SNIFF_BYTES, sniffMedia } from "../media/media_store.ts";
import { resultUrlProblem } from "../media/result_url.ts";
import { decodeDataUrl, isDataUrl } from "../media/data_url.ts";
import { networkProblem } from "../upstream/attempt.ts";

export type ResponseFormat = "url" | "b64_json";

/** One item of `data[]` in an images answer. */
export interface ImageItem {
  url?: string;
  b64_json?: string;
  revised_prompt?: string;
}

/** An image in bytes, with its type. */
export interface ImageBytes {
  bytes: Uint8Array<ArrayBuffer>;
  mimeType: string;
}

const FETCH_LIMIT_BYTES = 20 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 30_000;

/** Where delivered media goes and what it may fetch. */
export interface DeliveryTarget {
  /** Base URL of hosted links: GATEWAY_PUBLIC_URL, else the request's own origin. */
  publicUrl: string;
  owner: string;
  /** Hosts a URL result may be fetched from: the channel's own and the configured allowlist. */
  fetchableHosts: ReadonlySet<string>;
  signal?: AbortSignal;
}

/** The hosted address of a media object. */
export function hostedMediaUrl(
  publicUrl: string,
  { id, mimeType }: { id: string; mimeType: string },
): string {
  return `${publicUrl}/media/${id}.${hostedExtension(mimeType) ?? "bin"}`;
}

/** Why an image is not delivered, in the gateway's own words: the client is told. */
export class UndeliverableImage extends Error {
  override name = "UndeliverableImage";
}

/**
 * The client's reason an image was not delivered: the gateway's own words, or for anything else
 * (a KV or library error, whose text may name internals) a plain sentence, the error logged.
 */
export function undeliverableReason(error: unknown): string {
  if (error instanceof UndeliverableImage || error instanceof GatewayError) return error.message;
  console.error(JSON.stringify({
    msg: "image delivery failed",
    error: error instanceof Error ? error.stack : String(error),
  }));
  return "the gateway could not store or encode the image (an internal error; it was logged)";
}

/** The image formats delivered, by name, for messages. */
const IMAGE_FORMATS = "PNG, JPEG, WebP, GIF, BMP or TIFF";

/**
 * The image in `bytes` with the type its bytes say; throws, naming what they are instead, when
 * they are not an image of a hosted type. `claimed` is the upstream's label, quoted only.
 */
export async function judgeImage(
  bytes: Uint8Array<ArrayBuffer>,
  claimed: string | undefined,
): Promise<ImageBytes> {
  const sniffed = await sniffMedia(bytes.subarray(0, MEDIA_SNIFF_BYTES));
  if (sniffed.contentType?.startsWith("image/")) return { bytes, mimeType: sniffed.contentType };
  const label = claimed && claimed !== sniffed.seen ? ` (labelled ${claimed})` : "";
  throw new UndeliverableImage(
    `the upstream's image is ${sniffed.seen}${label}, not an image (${IMAGE_FORMATS})`,
  );
}

/** Base64, or a data: URL (base64 or percent-encoded, with or without parameters). */
function fromDataUrlOrBase64(
  b64: string,
  fallbackType: string,
): { bytes: Uint8Array<ArrayBuffer>; claimed: string } | null {
  if (isDataUrl(b64)) {
    const decoded = decodeDataUrl(b64);
    return decoded?.bytes.length
      ? { bytes: decoded.bytes, claimed: decoded.declaredType || fallbackType }
      : null;
  }
  const bytes = bytesOfBase64(b64);
  return bytes?.length ? { bytes, claimed: fallbackType } : null;
}

/**
 * Fetches an image URL within the limits and judges its bytes; throws with a reason when it may
 * not or cannot, or when the bytes are not an image.
 */
export async function fetchImage(
  url: string,
  fetchableHosts: ReadonlySet<string>,
  signal?: AbortSignal,
): Promise<ImageBytes> {
  const problem = resultUrlProblem(url);
  if (problem) throw new UndeliverableImage(problem);
  const parsed = new URL(url);
  if (!fetchableHosts.has(parsed.host)) {
    throw new UndeliverableImage(
      `image host ${parsed.host} is not the channel's host nor on the allowlist`,
    );
  }
  const timeout = AbortSignal.timeout(FETCH_TIMEOUT_MS);
  const tooLarge = new UndeliverableImage("the image is larger than 20 MB");
  // The runtime's fetch errors quote the URL with its query (often a signed token): the client
  // is told what kind of failure it was, in the gateway's words.
  const failed = (error: unknown) =>
    error === tooLarge ? error : new UndeliverableImage(
      timeout.aborted
        ? `fetching the image from ${parsed.host} took longer than ${FETCH_TIMEOUT_MS / 1000} s`
        : `the image could not be fetched from ${parsed.host}: ${networkProblem(error).message}`,
    );
  let response: Response;
  try {
    response = await fetch(parsed, {
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      redirect: "error",
    });
  } catch (error) {
    throw failed(error);
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    throw new UndeliverableImage(`fetching the image answered HTTP ${response.status}`);
  }
  const bytes = await readLimited(response.body, {
    maxBytes: FETCH_LIMIT_BYTES,
    tooLarge: () => tooLarge,
  }).catch((error) => {
    throw failed(error);
  });
  const claimed = response.headers.get("content-type")?.split(";")[0].trim() || undefined;
  return await judgeImage(bytes, claimed);
}

/** The bytes of an upstream image, fetching a URL result when needed, judged as an image. */
export async function imageBytes(
  image: UpstreamImage,
  target: DeliveryTarget,
): Promise<ImageBytes> {
  if (image.b64 !== undefined) {
    const decoded = fromDataUrlOrBase64(image.b64, image.mimeType);
    if (!decoded) {
      throw new UndeliverableImage(
        "the upstream returned image data that is neither base64 nor a data URL",
      );
    }
    return await judgeImage(decoded.bytes, decoded.claimed);
  }
  return await fetchImage(image.url!, target.fetchableHosts, target.signal);
}

/**
 * Delivers each image in `format`. An image that cannot be delivered (bad data, a URL that may
 * not or cannot be fetched) is left out and reported; the caller bills only what was delivered.
 */
export async function deliverImages(
  gateway: Gateway,
  images: UpstreamImage[],
  { format, target }: { format: ResponseFormat; target: DeliveryTarget },
): Promise<{ items: ImageItem[]; failures: string[] }> {
  const items: ImageItem[] = [];
  const failures: string[] = [];
  for (const image of images) {
    try {
      const revised = image.revisedPrompt ? { revised_prompt: image.revisedPrompt } : {};
      if (format === "url" && image.url !== undefined) {
        const problem = resultUrlProblem(image.url);
        if (problem) throw new UndeliverableImage(problem);
        items.push({ url: image.url, ...revised });
        continue;
      }
      const { bytes, mimeType } = await imageBytes(image, target);
      if (format === "b64_json") {
        items.push({ b64_json: bytes.toBase64(), ...revised });
      } else {
        const record = await gateway.media.put(bytes, {
          contentType: mimeType,
          owner: target.owner,
        });
        items.push({
          url: hostedMediaUrl(target.publicUrl, { id: record.id, mimeType: record.content_type }),
          ...revised,
        });
      }
    } catch (error) {
      failures.push(undeliverableReason(error));
    }
  }
  return { items, failures };
}
