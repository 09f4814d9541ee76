/**
 * The chunks of a WAV file that say how long it is: its fmt chunk and where its data is. Both
 * duration readers use it: the in-process reader measures the data with it, and the ffprobe
 * reader checks a WAV with it first, because ffprobe measures some WAVs by a header field the
 * client wrote. It refuses (ProbeError), whichever reader reads the file:
 *
 *   - a data chunk that declares more bytes than the file holds (an upload cut short): ffprobe
 *     would estimate what is there from the header's byte rate;
 *   - a data chunk whose size is left open (0 or 0xFFFFFFFF, as a writer to a pipe leaves it)
 *     when the byte rate is not sample rate × channels × sample size, or the encoding is not
 *     PCM: ffprobe takes such a file's length from its byte rate alone (a rate 32 times too
 *     high makes 1.1 s read 0.034 s);
 *   - a data chunk that starts after the first WAV_HEADER_BYTES (the ffprobe reader reads only
 *     those from an upload on disk).
 */

import { ProbeError } from "./probe_error.ts";

export const WAV_TYPES = new Set(["audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave"]);

/** Whether `contentType` (parameters and case aside) is a WAV type. */
export function isWav(contentType: string): boolean {
  return WAV_TYPES.has(contentType.split(";")[0].trim().toLowerCase());
}

/** How far into a WAV file its data chunk may start. */
export const WAV_HEADER_BYTES = 1024 * 1024;

export interface WavFormat {
  /** The format tag (WAVE_FORMAT_EXTENSIBLE's sub-format tag where it has one). */
  tag: number;
  channels: number;
  rate: number;
  bits: number;
  byteRate: number;
  /** Bits a sample takes as ffmpeg decodes it; undefined for encodings other than PCM. */
  pcmBits?: number;
}

export interface WavLayout {
  format: WavFormat;
  /** The bytes of sound data present. */
  dataBytes: number;
}

function fourcc(bytes: Uint8Array, offset: number): string {
  return String.fromCharCode(...bytes.subarray(offset, offset + 4));
}

/**
 * The layout of the WAV file of `size` bytes whose first bytes are `head` (the whole file, or at
 * least its first WAV_HEADER_BYTES).
 */
export function readWavLayout(head: Uint8Array, size = head.length): WavLayout {
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  if (size < 12) {
    throw new ProbeError(`the WAV file is truncated: ${size} bytes, not even a RIFF header`);
  }
  const riff = fourcc(head, 0);
  if (!["RIFF", "RF64", "BW64"].includes(riff) || fourcc(head, 8) !== "WAVE") {
    throw new ProbeError("the file is not a WAV file (no RIFF/WAVE header)");
  }
  // RF64/BW64 (EBU 3306, ITU-R BS.2088): the sizes that do not fit 32 bits are in a ds64 chunk.
  let ds64DataSize: number | undefined;
  if (riff !== "RIFF") {
    if (head.length < 44 || fourcc(head, 12) !== "ds64" || view.getUint32(16, true) < 24) {
      throw new ProbeError(`the ${riff} WAV file has no ds64 chunk (truncated or corrupt)`);
    }
    ds64DataSize = Number(view.getBigUint64(28, true));
  }
  let format: WavFormat | undefined;
  let data: { offset: number; size: number; open: boolean } | undefined;
  let offset = 12;
  while (offset + 8 <= size) {
    // Chunks after the data may lie anywhere; the data must start where the ffprobe reader reads.
    if (offset + 8 > Math.min(head.length, data ? Infinity : WAV_HEADER_BYTES)) {
      if (data) break;
      throw new ProbeError(
        `the WAV file's data chunk does not start in its first ${WAV_HEADER_BYTES} bytes`,
      );
    }
    const id = fourcc(head, offset);
    let chunkSize = view.getUint32(offset + 4, true);
    const body = offset + 8;
    if (id === "data") {
      if (ds64DataSize !== undefined && chunkSize === 0xffffffff) chunkSize = ds64DataSize;
      // 0 or 0xFFFFFFFF: written without seeking back (a pipe); the data runs to the end.
      const open = chunkSize === 0 || chunkSize === 0xffffffff;
      if (!open && body + chunkSize > size) {
        throw new ProbeError(
          `the WAV file is truncated: its data chunk declares ${chunkSize} bytes, ` +
            `${size - body} are present`,
        );
      }
      data = { offset: body, size: open ? size - body : chunkSize, open };
      if (open) break;
    } else if (id === "fmt ") {
      if (chunkSize < 16 || body + 16 > head.length) {
        throw new ProbeError("the WAV file is truncated or corrupt: its fmt chunk is too short");
      }
      let tag = view.getUint16(body, true);
      if (tag === 0xfffe && chunkSize >= 40 && body + 26 <= head.length) {
        tag = view.getUint16(body + 24, true); // WAVE_FORMAT_EXTENSIBLE: the sub-format's tag
      }
      const bits = view.getUint16(body + 14, true);
      format = {
        tag,
        channels: view.getUint16(body + 2, true),
        rate: view.getUint32(body + 4, true),
        byteRate: view.getUint32(body + 8, true),
        bits,
        pcmBits: pcmBits(tag, bits),
      };
    }
    offset = body + chunkSize + (chunkSize & 1);
  }
  if (!format) throw new ProbeError("the WAV file has no fmt chunk (truncated or corrupt)");
  if (!data) throw new ProbeError("the WAV file has no data chunk (truncated or corrupt)");
  if (data.open) checkByteRate(format);
  return { format, dataBytes: data.size };
}

/**
 * ffmpeg's PCM codec for the tag and bit depth: integer sizes round up to whole bytes; float is
 * 32 or 64 bits; A-law and µ-law are 8 bits. Undefined for everything else.
 */
function pcmBits(tag: number, bits: number): number | undefined {
  if (tag === 1 && bits > 0 && bits <= 64) return Math.ceil(bits / 8) * 8;
  if (tag === 3 && (bits === 32 || bits === 64)) return bits;
  if (tag === 6 || tag === 7) return 8;
  return undefined;
}

function checkByteRate(format: WavFormat): void {
  if (format.pcmBits === undefined) {
    throw new ProbeError(
      "the WAV file's data runs to the end of the file and it is not PCM: its length could only " +
        "be estimated from its byte rate",
    );
  }
  const expected = format.rate * format.channels * format.pcmBits / 8;
  if (format.byteRate !== expected) {
    throw new ProbeError(
      `the WAV file's byte rate (${format.byteRate}) is not its sample rate × channels × ` +
        `sample size (${expected})`,
    );
  }
}
