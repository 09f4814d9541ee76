/**
 * Reads a video request's multipart body as it arrives: text fields into memory, each file part
 * straight to a temp file (so a large upload is never held twice), with its first bytes kept for
 * the format check. The caller disposes of the temp files when it is done. Where no temp file
 * may be written (Deno Deploy without file writes) the parts are held in memory instead.
 */

import { createHash } from "node:crypto";
import { GatewayError, invalidRequest } from "../core/errors.ts";
import {
  megabytes,
  REFERENCE_FIELDS,
  REFERENCE_LIMITS,
  type ReferenceKind,
  SNIFF_BYTES,
} from "../core/video/reference_media.ts";
import type { UploadedFile } from "../core/video/video_service.ts";
import { multipartParts } from "./multipart_body.ts";

/** The largest file of each kind any model accepts (default: the reference defaults). */
export type ReferenceByteLimits = Record<ReferenceKind, number>;

const DEFAULT_BYTE_LIMITS: ReferenceByteLimits = {
  image: REFERENCE_LIMITS.image.maxBytes,
  video: REFERENCE_LIMITS.video.maxBytes,
  audio: REFERENCE_LIMITS.audio.maxBytes,
};

export interface VideoUpload extends AsyncDisposable {
  fields: Record<string, string>;
  files: UploadedFile[];
}

/** Writes the part to `path`; returns its first bytes and the SHA-256 of all of them. */
async function writePart(
  path: string,
  chunks: Uint8Array[],
): Promise<{ head: Uint8Array; sha256: string }> {
  using file = await Deno.open(path, { write: true, createNew: true });
  const head = new Uint8Array(SNIFF_BYTES);
  const hash = createHash("sha256");
  let headLength = 0;
  for (const chunk of chunks) {
    if (headLength < SNIFF_BYTES) {
      const take = Math.min(SNIFF_BYTES - headLength, chunk.length);
      head.set(chunk.subarray(0, take), headLength);
      headLength += take;
    }
    hash.update(chunk);
    let written = 0;
    while (written < chunk.length) written += await file.write(chunk.subarray(written));
  }
  return { head: head.subarray(0, headLength), sha256: hash.digest("hex") };
}

/**
 * Parses the body of `request`; throws a 4xx naming the field for any malformed part. `limits`
 * bound each file before the model is known (the model's own limits are checked later). Files go
 * to temp files, or stay in memory where the process may not write (`toDisk: false`, Deploy).
 */
export async function readVideoUpload(
  request: Request,
  options: { limits?: ReferenceByteLimits; toDisk: boolean },
): Promise<VideoUpload> {
  const limits = options.limits ?? DEFAULT_BYTE_LIMITS;
  const maxFileBytes = Math.max(limits.image, limits.video, limits.audio);
  // Three images, a video and an audio at their limits, plus the text fields.
  const maxTotalBytes = 3 * limits.image + limits.video + limits.audio + 1024 * 1024;
  if (!/^multipart\/form-data/i.test(request.headers.get("content-type") ?? "")) {
    throw invalidRequest(
      "A video request is sent as multipart/form-data (fields model, prompt, duration, ratio, " +
        "image_1..3, video, audio)",
      undefined,
      "invalid_content_type",
    );
  }
  const dir = options.toDisk ? await Deno.makeTempDir({ prefix: "gateway-upload-" }) : undefined;
  const upload: VideoUpload = {
    fields: {},
    files: [],
    [Symbol.asyncDispose]: async () => {
      if (dir) await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
  try {
    const parts = multipartParts(request, {
      maxFileBytes,
      maxTotalBytes,
      fileTooLarge: () =>
        new GatewayError(
          "file_too_large",
          413,
          `A file is larger than ${megabytes(maxFileBytes)} MB, the largest reference accepted`,
        ),
    });
    for await (const part of parts) {
      const name = part.name ?? "";
      if (!part.isFile) {
        if (name in REFERENCE_FIELDS) {
          throw invalidRequest(`${name} must be a file upload, not a text field`, name);
        }
        if (name in upload.fields) throw invalidRequest(`Send ${name} once`, name);
        upload.fields[name] = part.text;
        continue;
      }
      if (!(name in REFERENCE_FIELDS)) {
        throw invalidRequest(
          /^image/.test(name)
            ? `Up to 3 reference images are accepted, as image_1, image_2 and image_3; got '${name}'`
            : `Unknown file field '${name}'; files go in image_1..3, video and audio`,
          name,
        );
      }
      if (upload.files.some((file) => file.field === name)) {
        throw invalidRequest(`Send one file as ${name}`, name);
      }
      const file = { field: name, filename: part.filename ?? name, size: part.size };
      if (dir) {
        const path = `${dir}/${name}`;
        const { head, sha256 } = await writePart(path, part.content);
        upload.files.push({ ...file, path, head, sha256 });
      } else {
        const bytes = part.bytes;
        const sha256 = createHash("sha256").update(bytes).digest("hex");
        upload.files.push({ ...file, bytes, head: bytes.subarray(0, SNIFF_BYTES), sha256 });
      }
    }
  } catch (error) {
    await upload[Symbol.asyncDispose]();
    if (error instanceof GatewayError) throw error;
    throw invalidRequest("The request body could not be read", undefined, "invalid_multipart");
  }
  return upload;
}
