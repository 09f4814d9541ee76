/**
 * Reads a video request's multipart body as it arrives: text fields into memory, each file part
 * straight to a temp file (so a large upload is never held twice), with its first bytes kept for
 * the format check. The caller disposes of the temp files when it is done. Where no temp file
 * may be written (Deno Deploy without file writes) the parts are held in memory instead.
 */

import {
  MaxFileSizeExceededError,
  MaxPartsExceededError,
  MaxTotalSizeExceededError,
  MultipartParseError,
  parseMultipartRequest,
} from "@remix-run/multipart-parser";
import { GatewayError, invalidRequest } from "../core/errors.ts";
import {
  MAX_REFERENCE_BYTES,
  REFERENCE_FIELDS,
  SNIFF_BYTES,
} from "../core/video/reference_media.ts";
import type { UploadedFile } from "../core/video/video_service.ts";

const MAX_PARTS = 32;
const MAX_TEXT_FIELD_BYTES = 64 * 1024;
/** Three images, a video and an audio at their limits, plus the text fields. */
const MAX_TOTAL_BYTES = 3 * 30 * 1024 * 1024 + 50 * 1024 * 1024 + 15 * 1024 * 1024 + 1024 * 1024;

export interface VideoUpload extends AsyncDisposable {
  fields: Record<string, string>;
  files: UploadedFile[];
}

async function writePart(path: string, chunks: Uint8Array[]): Promise<Uint8Array> {
  using file = await Deno.open(path, { write: true, createNew: true });
  const head = new Uint8Array(SNIFF_BYTES);
  let headLength = 0;
  for (const chunk of chunks) {
    if (headLength < SNIFF_BYTES) {
      const take = Math.min(SNIFF_BYTES - headLength, chunk.length);
      head.set(chunk.subarray(0, take), headLength);
      headLength += take;
    }
    let written = 0;
    while (written < chunk.length) written += await file.write(chunk.subarray(written));
  }
  return head.subarray(0, headLength);
}

function parseError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  if (error instanceof MaxFileSizeExceededError) {
    return new GatewayError(
      "file_too_large",
      413,
      `A file is larger than ${
        MAX_REFERENCE_BYTES / 1024 / 1024
      } MB, the largest reference accepted`,
    );
  }
  if (error instanceof MaxTotalSizeExceededError) {
    return new GatewayError("request_too_large", 413, "The multipart body is too large");
  }
  if (error instanceof MaxPartsExceededError) {
    return invalidRequest(`Send at most ${MAX_PARTS} form fields`, undefined, "invalid_multipart");
  }
  if (error instanceof MultipartParseError) {
    return invalidRequest(
      `The multipart body could not be parsed: ${error.message}`,
      undefined,
      "invalid_multipart",
    );
  }
  return invalidRequest("The request body could not be read", undefined, "invalid_multipart");
}

/** Parses the body of `request`; throws a 4xx naming the field for any malformed part. */
export async function readVideoUpload(
  request: Request,
  options: { toDisk: boolean } = { toDisk: true },
): Promise<VideoUpload> {
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
    const parts = parseMultipartRequest(request, {
      maxFileSize: MAX_REFERENCE_BYTES,
      maxParts: MAX_PARTS,
      maxTotalSize: MAX_TOTAL_BYTES,
    });
    for await (const part of parts) {
      const name = part.name ?? "";
      if (!part.isFile) {
        if (name in REFERENCE_FIELDS) {
          throw invalidRequest(`${name} must be a file upload, not a text field`, name);
        }
        if (part.size > MAX_TEXT_FIELD_BYTES) {
          throw invalidRequest(`${name} is longer than ${MAX_TEXT_FIELD_BYTES} bytes`, name);
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
        upload.files.push({ ...file, path, head: await writePart(path, part.content) });
      } else {
        const bytes = part.bytes;
        upload.files.push({ ...file, bytes, head: bytes.subarray(0, SNIFF_BYTES) });
      }
    }
  } catch (error) {
    await upload[Symbol.asyncDispose]();
    throw parseError(error);
  }
  return upload;
}
