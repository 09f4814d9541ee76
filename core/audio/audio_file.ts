/**
 * The uploaded audio of a transcription: OpenAI's limits (25 MB; flac, m4a, mp3, mp4, mpeg, mpga,
 * oga, ogg, wav, webm), the format judged from the bytes (file-type), never from the part's type
 * or name. A file that is not one of them is a 400 before any charge.
 */

import { invalidRequest } from "../errors.ts";
import { sniffFileType } from "../media/sniff_type.ts";
import type { AudioFile } from "../jobs/transcription_job.ts";

/** OpenAI's upload limit: 25 MB. */
export const MAX_AUDIO_BYTES = 25 * 1024 * 1024;

/** Bytes the sniffer reads. */
const SNIFF_BYTES = 4100;

/** Accepted formats by the extension file-type gives, with the extension sent upstream. */
const FORMATS: Record<string, string> = {
  mp3: "mp3",
  mp2: "mpga",
  mp1: "mpga",
  mpg: "mpeg",
  mp4: "mp4",
  m4a: "m4a",
  wav: "wav",
  webm: "webm",
  flac: "flac",
  ogg: "ogg",
  oga: "ogg",
  opus: "ogg",
};

/** The names of the accepted formats, for messages. */
export const AUDIO_FORMAT_NAMES = "flac, m4a, mp3, mp4, mpeg, mpga, oga, ogg, wav, webm";

/** Content types file-type gives that name the same format under another spelling. */
const CANONICAL_TYPES: Record<string, string> = { "audio/x-wav": "audio/wav" };

/**
 * The upload `bytes` named `filename` as sent upstream: its content type from its bytes, and a
 * name whose extension is that format. Throws a 400 for an empty file or one of another format.
 */
export async function checkedAudioFile(
  bytes: Uint8Array<ArrayBuffer>,
  filename: string,
): Promise<AudioFile> {
  if (bytes.length === 0) throw invalidRequest("file is an empty file", "file", "invalid_file");
  const sniffed = await sniffFileType(bytes.subarray(0, SNIFF_BYTES));
  const extension = sniffed && FORMATS[sniffed.ext];
  if (!sniffed || !extension) {
    const seen = sniffed ? `this file is ${sniffed.mime}` : "its format was not recognised";
    throw invalidRequest(
      `file must be an audio file (${AUDIO_FORMAT_NAMES}), judged from its bytes; ${seen}`,
      "file",
      "invalid_file_format",
    );
  }
  const own = filename.match(/\.([a-z0-9]+)$/i)?.[1]?.toLowerCase();
  const keepsName = own !== undefined && (own === extension || own === sniffed.ext) &&
    /^[\w .()-]{1,200}$/.test(filename);
  return {
    bytes,
    filename: keepsName ? filename : `audio.${extension}`,
    contentType: CANONICAL_TYPES[sniffed.mime] ?? sniffed.mime,
  };
}
