/**
 * Hosted media in KV: a record (owner, content type, size, expiry) and the bytes in chunks under
 * KV's value limit. The record is written last, so a half-written object is never served; every
 * key carries the expiry, and reads check `expires_at` themselves (KV expiry is lazy).
 *
 * What is stored is judged from its bytes: the record's content type is what sniffing the first
 * bytes finds (`file-type`), never what a caller or an upstream said, and only the image, video
 * and audio types of HOSTED_MEDIA_TYPES are stored. Anything else — markup such as HTML or SVG
 * (which can carry scripts), text, an unknown format — is refused before any byte is written.
 */

import { sniffFileType } from "./sniff_type.ts";
import { GatewayError } from "../errors.ts";
import { concatBytes } from "../util/bytes.ts";
import { randomBase62 } from "../util/ids.ts";
import { kvKeys } from "../kv/kv_keys.ts";
import { withKvRetry } from "../kv/kv_retry.ts";
import type { KvBackend } from "../kv/kv_backend.ts";

/** Bytes per chunk: under KV's 65,536-byte value limit with room for the encoding. */
const CHUNK_BYTES = 60_000;
/** Chunks per commit: KV allows 819,200 bytes of mutations per commit. */
const CHUNKS_PER_COMMIT = 12;

/**
 * The media types the store hosts — what sniffing the bytes may find — with the extension of
 * their hosted address. Nothing else is stored: no markup (HTML, SVG), no scripts, no unknowns.
 */
export const HOSTED_MEDIA_TYPES: Readonly<Record<string, string>> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/webp": "webp",
  "image/gif": "gif",
  "image/bmp": "bmp",
  "image/tiff": "tiff",
  "video/mp4": "mp4",
  "video/quicktime": "mov",
  "video/webm": "webm",
  "audio/wav": "wav",
  "audio/mpeg": "mp3",
  "audio/mp4": "m4a",
  "audio/aac": "aac",
  "audio/ogg": "ogg",
};

/** Other names the sniffer gives to hosted formats. */
const SNIFFED_ALIASES: Readonly<Record<string, string>> = {
  "image/apng": "image/png",
  "audio/x-wav": "audio/wav",
  "audio/vnd.wave": "audio/wav",
  "audio/x-m4a": "audio/mp4",
};

/** The hosted formats by name, for messages. */
export const HOSTED_FORMATS =
  "PNG, JPEG, WebP, GIF, BMP, TIFF; MP4, MOV, WebM; WAV, MP3, M4A/AAC, Ogg";

/** Bytes sniffed from the start of a file: file-type's own sample size. */
export const MEDIA_SNIFF_BYTES = 4100;

/** What the first bytes of a file are: a hosted type, or null with what they were seen to be. */
export interface SniffedMedia {
  /** The hosted content type the bytes are, or null when they are not one. */
  contentType: string | null;
  /** What the bytes were seen to be: a content type, or a few words when none applies. */
  seen: string;
}

/** A few words on bytes the format sniffer did not know (or took for XML): markup, text, or not. */
function describeUnknown(head: Uint8Array): string {
  if (head.length === 0) return "empty";
  const text = new TextDecoder().decode(head.subarray(0, 1024), { stream: true }).replace(
    /^\uFEFF/,
    "",
  )
    .trimStart().toLowerCase();
  if (text.startsWith("<")) {
    if (/<svg[\s>]/.test(text)) return "image/svg+xml";
    if (/<(!doctype html|html|head|body|script|iframe|div|p|a|meta)[\s>]/.test(text)) {
      return "text/html";
    }
    return text.startsWith("<?xml") ? "application/xml" : "markup (HTML or XML)";
  }
  // deno-lint-ignore no-control-regex
  if (!/[\x00-\x08\x0e-\x1f\ufffd]/.test(text)) return "text/plain";
  return "an unrecognised format";
}

/** Judges the first bytes of a file (MEDIA_SNIFF_BYTES are enough) against the hosted types. */
export async function sniffMedia(head: Uint8Array): Promise<SniffedMedia> {
  const sniffed = (await sniffFileType(head))?.mime
    .split(";")[0].trim();
  const mime = sniffed ? SNIFFED_ALIASES[sniffed] ?? sniffed : undefined;
  if (mime && hostedExtension(mime)) return { contentType: mime, seen: mime };
  const seen = !mime || mime === "application/xml" ? describeUnknown(head) : mime;
  return { contentType: null, seen };
}

/** Bytes the media store will not host, with what they were seen to be. */
export class UnhostableMediaError extends GatewayError {
  /** What the bytes were seen to be (see SniffedMedia). */
  readonly seen: string;

  constructor(seen: string, claimed?: string) {
    const label = claimed && claimed !== seen ? ` (labelled ${claimed})` : "";
    super(
      "unhostable_media",
      415,
      `the bytes are ${seen}${label}, not a media type the gateway hosts (${HOSTED_FORMATS})`,
    );
    this.seen = seen;
  }
}

/** The extension of a hosted type's address (`png`, `jpg`, `mov`, …); null for any other type. */
export function hostedExtension(contentType: string): string | null {
  return Object.hasOwn(HOSTED_MEDIA_TYPES, contentType) ? HOSTED_MEDIA_TYPES[contentType] : null;
}

export interface MediaRecord {
  id: string;
  /** The key owner it was made for (see ownerOf), or `gateway` for the gateway's own uploads. */
  owner: string;
  content_type: string;
  size: number;
  chunks: number;
  created_at: string;
  expires_at: string;
}

/** A byte range of a stored object, end inclusive. */
export interface ByteRange {
  start: number;
  end: number;
}

/** What is stored with media bytes. */
export interface PutOptions {
  /**
   * What the bytes were said to be (an upstream's label, an upload's part type). Never stored:
   * the stored type is sniffed from the bytes; it is only quoted when the bytes are refused.
   */
  contentType?: string;
  /** Who may read it: a key owner, or `gateway` for the gateway's own files. */
  owner: string;
  /** How long it lives; the store's default media TTL when absent. */
  ttlMs?: number;
  /**
   * The id to store it under (from `newMediaId`), chosen before the write so a write that is
   * done again after a crash lands on the same object; a new one when absent.
   */
  id?: string;
}

/** A new media id: 32 base62 characters (~190 bits), the capability in its hosted address. */
export function newMediaId(): string {
  return `med_${randomBase62(32)}`;
}

export class MediaStore {
  #kv: KvBackend;
  #ttlMs: number;

  constructor(kv: KvBackend, ttlMs: number) {
    this.#kv = kv;
    this.#ttlMs = ttlMs;
  }

  /**
   * Stores `bytes`; returns the record, whose `content_type` is sniffed from the bytes. Throws
   * UnhostableMediaError, having written nothing, when they are not a hosted type. The id is 32
   * base62 characters (~190 bits).
   */
  put(bytes: Uint8Array, options: PutOptions): Promise<MediaRecord> {
    return this.putChunks([bytes], options);
  }

  /**
   * Stores the bytes of `source` (e.g. a file read piece by piece) without gathering them:
   * at most one commit's worth of chunks is in memory at a time. The first MEDIA_SNIFF_BYTES are
   * judged before anything is written, as in `put`.
   */
  async putChunks(
    source: Iterable<Uint8Array> | AsyncIterable<Uint8Array>,
    { contentType: claimed, owner, ttlMs = this.#ttlMs, id }: PutOptions,
  ): Promise<MediaRecord> {
    const pieces = (async function* () {
      yield* source;
    })();
    const head: Uint8Array[] = [];
    let headSize = 0;
    while (headSize < MEDIA_SNIFF_BYTES) {
      const next = await pieces.next();
      if (next.done) break;
      head.push(next.value);
      headSize += next.value.length;
    }
    const first = head.length === 1 ? head[0] : concatBytes(head);
    const sniffed = await sniffMedia(first.subarray(0, MEDIA_SNIFF_BYTES));
    if (!sniffed.contentType) {
      await pieces.return(undefined);
      throw new UnhostableMediaError(sniffed.seen, claimed);
    }
    return await this.#write(
      (async function* () {
        yield* head;
        yield* pieces;
      })(),
      { contentType: sniffed.contentType, owner, ttlMs, id: id ?? newMediaId() },
    );
  }

  /** Writes the chunks of `source`, then the record. */
  async #write(
    source: AsyncIterable<Uint8Array>,
    { contentType, owner, ttlMs, id }: {
      contentType: string;
      owner: string;
      ttlMs: number;
      id: string;
    },
  ): Promise<MediaRecord> {
    let size = 0;
    let chunks = 0;
    let atomic = this.#kv.atomic();
    let inCommit = 0;
    const write = async (chunk: Uint8Array) => {
      atomic.set(kvKeys.mediaChunk(id, chunks++), chunk, { expireIn: ttlMs });
      if (++inCommit === CHUNKS_PER_COMMIT) {
        await withKvRetry(() => atomic.commit());
        atomic = this.#kv.atomic();
        inCommit = 0;
      }
    };
    let partial = new Uint8Array(CHUNK_BYTES);
    let filled = 0;
    for await (const piece of source) {
      size += piece.length;
      let offset = 0;
      while (offset < piece.length) {
        if (filled === 0 && piece.length - offset >= CHUNK_BYTES) {
          await write(piece.subarray(offset, offset + CHUNK_BYTES));
          offset += CHUNK_BYTES;
          continue;
        }
        const take = Math.min(CHUNK_BYTES - filled, piece.length - offset);
        partial.set(piece.subarray(offset, offset + take), filled);
        filled += take;
        offset += take;
        if (filled === CHUNK_BYTES) {
          await write(partial);
          partial = new Uint8Array(CHUNK_BYTES);
          filled = 0;
        }
      }
    }
    if (filled > 0) await write(partial.subarray(0, filled));
    if (inCommit > 0) await withKvRetry(() => atomic.commit());
    const now = Date.now();
    const record: MediaRecord = {
      id,
      owner,
      content_type: contentType,
      size,
      chunks,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + ttlMs).toISOString(),
    };
    await withKvRetry(() => this.#kv.set(kvKeys.media(id), record, { expireIn: ttlMs }));
    return record;
  }

  /** Deletes an object (its record first, so it is never served half-deleted). */
  async delete(record: MediaRecord): Promise<void> {
    await withKvRetry(() => this.#kv.delete(kvKeys.media(record.id)));
    for (let first = 0; first < record.chunks; first += CHUNKS_PER_COMMIT) {
      const atomic = this.#kv.atomic();
      for (let index = first; index < Math.min(record.chunks, first + CHUNKS_PER_COMMIT); index++) {
        atomic.delete(kvKeys.mediaChunk(record.id, index));
      }
      await withKvRetry(() => atomic.commit());
    }
  }

  /** The record of a live object, or null when it is unknown or expired. */
  async get(id: string): Promise<MediaRecord | null> {
    if (!/^med_[0-9A-Za-z]{32}$/.test(id)) return null;
    const record = (await this.#kv.get<MediaRecord>(kvKeys.media(id))).value;
    if (!record || Date.parse(record.expires_at) <= Date.now()) return null;
    return record;
  }

  /** Streams bytes `range` (default all) of `record`, reading one chunk at a time. */
  stream(record: MediaRecord, range?: ByteRange): ReadableStream<Uint8Array> {
    const start = range?.start ?? 0;
    const end = range?.end ?? record.size - 1;
    let index = Math.floor(start / CHUNK_BYTES);
    const last = Math.floor(end / CHUNK_BYTES);
    const kv = this.#kv;
    return new ReadableStream({
      async pull(controller) {
        if (index > last || record.size === 0) return controller.close();
        const chunk = (await kv.get<Uint8Array>(kvKeys.mediaChunk(record.id, index))).value;
        if (!chunk) return controller.error(new Error(`media ${record.id} lost chunk ${index}`));
        const offset = index * CHUNK_BYTES;
        controller.enqueue(
          chunk.subarray(Math.max(0, start - offset), Math.min(chunk.length, end - offset + 1)),
        );
        index++;
      },
    });
  }

  /** All bytes of `record`. */
  async read(record: MediaRecord): Promise<Uint8Array> {
    const out = new Uint8Array(record.size);
    let offset = 0;
    for await (const chunk of this.stream(record)) {
      out.set(chunk, offset);
      offset += chunk.length;
    }
    return out;
  }

  /** Reads an object the gateway stored for its own use; throws when it is gone. */
  async readOwn(id: string): Promise<{ record: MediaRecord; bytes: Uint8Array }> {
    const record = await this.get(id);
    if (!record) {
      throw new GatewayError("media_expired", 410, `Stored input ${id} has expired`);
    }
    return { record, bytes: await this.read(record) };
  }
}

/**
 * Parses a `Range` header against `size`: one `bytes=` range (start-end, start-, or -suffix).
 * Returns null when there is no usable header (serve everything), "unsatisfiable" for a range
 * outside the object.
 */
export function parseRange(
  header: string | null,
  size: number,
): ByteRange | null | "unsatisfiable" {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === "" && match[2] === "")) return null;
  let start: number;
  let end: number;
  if (match[1] === "") {
    const suffix = Number(match[2]);
    if (suffix === 0) return "unsatisfiable";
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start >= size || start > end) return "unsatisfiable";
  return { start, end };
}
