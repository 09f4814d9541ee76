/**
 * Reference files of a video request: the fields, the formats accepted (judged from the bytes,
 * never from the part's content type) and the default limits. The defaults are the upstream's own
 * (Seedance 2.0 on ModelArk), so a file it would refuse is refused here, before any charge; a
 * catalog model's `limits` may widen or narrow them (video_models.ts).
 */

import { sniffFileType } from "../media/sniff_type.ts";
import type { ReferenceKind } from "../jobs/video_job.ts";

export type { ReferenceKind };

export const REFERENCE_FIELDS: Record<string, ReferenceKind> = {
  image_1: "image",
  image_2: "image",
  image_3: "image",
  video: "video",
  audio: "audio",
};

const MIB = 1024 * 1024;

export interface ReferenceLimits {
  /** Content types accepted, as sniffed from the bytes. */
  formats: Record<string, string>;
  maxBytes: number;
  /** Seconds; only for media with a duration. */
  minSeconds?: number;
  maxSeconds?: number;
}

export const REFERENCE_LIMITS: Record<ReferenceKind, ReferenceLimits> = {
  image: {
    formats: {
      "image/jpeg": "JPEG",
      "image/png": "PNG",
      "image/webp": "WebP",
      "image/bmp": "BMP",
      "image/tiff": "TIFF",
      "image/gif": "GIF",
    },
    maxBytes: 30 * MIB,
  },
  video: {
    formats: { "video/mp4": "MP4", "video/quicktime": "MOV" },
    maxBytes: 50 * MIB,
    minSeconds: 2,
    maxSeconds: 15,
  },
  audio: {
    formats: { "audio/wav": "WAV", "audio/mpeg": "MP3" },
    maxBytes: 15 * MIB,
    maxSeconds: 15,
  },
};

/** A byte count in MB for messages: whole where it is whole, else to one decimal. */
export function megabytes(bytes: number): string {
  const mb = bytes / MIB;
  return Number.isInteger(mb) ? String(mb) : mb.toFixed(1);
}

/** Bytes the format sniffer needs from the start of a file. */
export const SNIFF_BYTES = 4100;

export function formatList(kind: ReferenceKind): string {
  return Object.values(REFERENCE_LIMITS[kind].formats).join(", ");
}

/**
 * The content type of a reference file from its first bytes, or the reason it is refused
 * (wrong kind, unknown format, too large or empty). `maxBytes` is the model's limit for the kind
 * (default: REFERENCE_LIMITS).
 */
export async function checkReferenceFile(
  field: string,
  { kind, head, size, maxBytes = REFERENCE_LIMITS[kind].maxBytes }: {
    kind: ReferenceKind;
    head: Uint8Array;
    size: number;
    maxBytes?: number;
  },
): Promise<{ contentType: string } | { refused: string; tooLarge?: true }> {
  const limits = REFERENCE_LIMITS[kind];
  if (size === 0) return { refused: `${field} is an empty file` };
  if (size > maxBytes) {
    return {
      refused: `${field} is ${size} bytes; a reference ${kind} may be at most ${
        megabytes(maxBytes)
      } MB for this model`,
      tooLarge: true,
    };
  }
  const sniffed = await sniffFileType(head);
  const mime = sniffed?.mime === "audio/x-wav" ? "audio/wav" : sniffed?.mime;
  if (mime && limits.formats[mime]) return { contentType: mime };
  const seen = mime ? `this file is ${mime}` : "the file's format was not recognised";
  const article = kind === "video" ? "a" : "an";
  return { refused: `${field} must be ${article} ${kind} file (${formatList(kind)}); ${seen}` };
}

const EXTENSIONS: Record<string, string> = {
  "image/jpeg": "jpg",
  "video/quicktime": "mov",
  "audio/mpeg": "mp3",
};

/** The file extension of a hosted reference's address. */
export function extensionOf(contentType: string): string {
  return EXTENSIONS[contentType] ?? contentType.split("/")[1];
}
