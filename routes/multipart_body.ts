/**
 * The one reader of multipart bodies: every route that takes `multipart/form-data` reads it here,
 * part by part as it arrives, so each has the same caps. Parsing stops at the first part over a
 * cap, without reading the rest of the body: a body of a million tiny parts costs no more than
 * its first 33.
 */

import {
  MaxFileSizeExceededError,
  MaxHeaderSizeExceededError,
  MaxPartsExceededError,
  MaxTotalSizeExceededError,
  MultipartParseError,
  type MultipartPart,
  parseMultipartRequest,
} from "@remix-run/multipart-parser";
import { GatewayError, invalidRequest } from "../core/errors.ts";
import { abandonBody, idleLimitedRequest } from "./body_idle.ts";

/** The most parts (files and text fields together) a multipart body may have. */
export const MAX_MULTIPART_PARTS = 32;
/** The longest text field of a multipart body. */
export const MAX_TEXT_FIELD_BYTES = 64 * 1024;

export interface MultipartLimits {
  /** The largest part. */
  maxFileBytes: number;
  /** The largest sum of the parts' contents. */
  maxTotalBytes: number;
  /** The 4xx for a part over `maxFileBytes` (default: 413 `file_too_large`). */
  fileTooLarge?: () => GatewayError;
}

function partsError(error: unknown, limits: MultipartLimits): GatewayError {
  if (error instanceof GatewayError) return error;
  if (error instanceof MaxFileSizeExceededError) {
    return limits.fileTooLarge?.() ??
      new GatewayError(
        "file_too_large",
        413,
        `A part is larger than ${limits.maxFileBytes.toLocaleString("en")} bytes`,
      );
  }
  if (error instanceof MaxTotalSizeExceededError) {
    return new GatewayError("request_too_large", 413, "The multipart body is too large");
  }
  if (error instanceof MaxPartsExceededError) {
    return invalidRequest(
      `Send at most ${MAX_MULTIPART_PARTS} form fields (files and text fields together)`,
      undefined,
      "invalid_multipart",
    );
  }
  if (error instanceof MaxHeaderSizeExceededError || error instanceof MultipartParseError) {
    return invalidRequest(
      `The multipart body could not be parsed: ${error.message}`,
      undefined,
      "invalid_multipart",
    );
  }
  return invalidRequest("The request body could not be read", undefined, "invalid_multipart");
}

/**
 * The parts of `request`'s multipart body as they arrive, at most MAX_MULTIPART_PARTS; a text
 * field longer than MAX_TEXT_FIELD_BYTES is a 400 naming it. Every failure is a 4xx GatewayError
 * (408 when the client stalls).
 */
export async function* multipartParts(
  request: Request,
  limits: MultipartLimits,
): AsyncGenerator<MultipartPart> {
  try {
    const parts = parseMultipartRequest(idleLimitedRequest(request), {
      maxFileSize: limits.maxFileBytes,
      maxParts: MAX_MULTIPART_PARTS,
      maxTotalSize: limits.maxTotalBytes,
    });
    for await (const part of parts) {
      if (!part.isFile && part.size > MAX_TEXT_FIELD_BYTES) {
        const name = part.name ?? "";
        throw invalidRequest(`${name} is longer than ${MAX_TEXT_FIELD_BYTES} bytes`, name);
      }
      yield part;
    }
  } catch (error) {
    abandonBody(request);
    throw partsError(error, limits);
  }
}

/** A file part, read whole. */
export interface MultipartFile {
  bytes: Uint8Array<ArrayBuffer>;
  filename: string;
}

/** A text field's value; one that is not UTF-8 is a 400 naming it. */
function fieldText(part: { text: string }, name: string): string {
  try {
    return part.text;
  } catch {
    throw new GatewayError(
      "invalid_multipart",
      400,
      `The multipart field '${name.slice(0, 100)}' is not valid UTF-8 text`,
      { param: name.slice(0, 100) || undefined },
    );
  }
}

/** Every part of `request`'s multipart body in order: text fields as strings, files as bytes. */
export async function readMultipartEntries(
  request: Request,
  limits: MultipartLimits,
): Promise<Array<[string, string | MultipartFile]>> {
  const entries: Array<[string, string | MultipartFile]> = [];
  for await (const part of multipartParts(request, limits)) {
    const name = part.name ?? "";
    if (!part.isFile) entries.push([name, fieldText(part, name)]);
    else {entries.push([name, {
        bytes: part.bytes as Uint8Array<ArrayBuffer>,
        filename: part.filename ?? "",
      }]);}
  }
  return entries;
}
