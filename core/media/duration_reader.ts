/**
 * Reads the duration of a reference video or audio file from its bytes, in process: no ffprobe,
 * no subprocess, no file (Deno Deploy has neither). The seconds are the ones ffprobe 5.1 (Debian
 * 12's) reports as `format=duration` for the same bytes, to the microsecond wherever the rule
 * below is ffprobe's own, so billing (each reference rounded to the millisecond) is the same.
 * tests/fixtures/media/ holds the corpus and the table of ffprobe's durations it is checked
 * against; the rules were also checked on some 50 more variants of ffmpeg's muxers.
 *
 * ffprobe's own answer depends on its version: later ffmpeg (e.g. the 2023 static build that
 * .ci/media-tools installs from npm when there is no ffprobe on PATH) no longer takes an MP4's
 * duration from its movie header but from its streams, so the two differ where the header was
 * rounded to its 1/1000 s timescale (2.5 s vs 2.499456 s with an empty edit) or has a leading
 * empty edit (-output_ts_offset 3: 5.32 s vs 2.343991 s). The rules here are 5.1's.
 *
 * MP4 / MOV (the boxes are parsed by mp4box, GPAC's MP4Box.js; the duration rule is ffmpeg's):
 *   - A moov with no trex: the movie header (mvhd) duration over its timescale, rescaled to
 *     microseconds rounding to nearest (libavformat/mov.c, mov_read_mvhd). This is the container's
 *     duration also where a track is longer or shorter than another (audio longer than the
 *     video), has an edit list or an empty edit: muxers write there the longest track's edited
 *     duration. (mp4box's `duration / timescale` is this value before the rounding.) The
 *     header is a field the client writes, so the tracks' samples outvote it when they last
 *     longer by more than a little (mp4_sample_lengths.ts: a forged 2 s header on 60 s of video
 *     reads 60 s, as the ffprobe reader says too); a header of 0 then gives the samples' length.
 *   - A moov whose mvex has a trex (a fragmented file): ffmpeg drops the movie header's duration
 *     (mov_read_trex) and derives it from the streams (demux.c, update_stream_timings): the
 *     largest of each stream's duration and of (latest stream end − earliest stream start).
 *     A stream's duration is where its last fragment ends: that fragment's tfdt (else the end of
 *     the previous one) plus its samples' durations (per sample, else tfhd's default, else
 *     trex's), or mdhd's duration if larger (samples in the moov itself). Its start is its first
 *     sample's decode time, shifted by the moov's edit list, plus its composition offset and the
 *     largest negative composition offset negated (mov_update_dts_shift). Subtitle and data
 *     tracks (timecode, …) count only when they end less than a second after the others. mehd
 *     is ignored, as ffmpeg ignores it. mp4box's own `fragment_duration` (mehd, else the sum of
 *     all sample durations, ignoring tfdt and start times) differs on B-frames (2.38 s where
 *     ffprobe says 2.4 s), so it is not used.
 *   - Refused: bytes that are not a box structure, a box that runs past the end of the file (a
 *     truncated upload; ffprobe still reports the moov's duration when the moov came first and
 *     only the mdat was cut, though samples are missing), no moov at all.
 *
 * WAV (RIFF, read here): PCM (integer or float, WAVE_FORMAT_EXTENSIBLE too) and G.711 A-law and
 * µ-law. Samples = floor(data bytes × 8 / (channels × bits)), bits being the sample container
 * rounded up to whole bytes (wavdec.c); seconds = samples / rate, rounded to the microsecond.
 * RF64/BW64 take the data size from ds64. A data chunk whose size is 0 or 0xFFFFFFFF (written to
 * a pipe) runs to the end of the file. Refused: other codecs (ADPCM, MP3 in WAV, …: ffprobe
 * estimates those from a bit rate), and what wav_layout.ts refuses for both readers: a data
 * chunk longer than the bytes present, an open-ended one whose byte rate is not the samples'
 * (ffprobe would estimate either from the byte rate field).
 *
 * MP3 (MPEG audio, read here): ID3v2 tags are skipped (every APIC picture in them is a `video`
 * stream for ffprobe, so it is listed as one); a Xing/Info/VBRI header is looked for in the frame
 * right after them, as mp3dec.c does, and the audio starts at the first frame followed by a frame
 * with the same header (its resync):
 *   - A Xing/Info header with a frame count, or a VBRI header: frames × samples per frame / rate,
 *     unless the frames present last more than 0.25 s longer (a forged count: ffprobe 5.1
 *     believes it, a 1.75 s file counted as 5 frames reads 0.13 s; the ffprobe reader counts the
 *     frames in process too).
 *     ffprobe's format duration does NOT subtract LAME's encoder delay and padding: the stream's
 *     start time moves by the delay and its end with it, so end − start is the whole frame count
 *     (a 2 s tone at 16 kHz is 58 frames of 576 samples: 2.088 s).
 *   - No such header, or one the file size contradicts by more than 1/16 (files joined end to
 *     end), and every audio frame at the same bit rate (CBR): ffprobe estimates from the bit rate
 *     as (file size − offset of the first audio frame) × 8 / bit rate, trailing tags (ID3v1, APE)
 *     included; so does the reader, with ffprobe's two roundings (to 1/14112000 s, then to µs).
 *   - No usable header and the bit rate changes from frame to frame (VBR without Xing/VBRI):
 *     ffprobe estimates from the average bit rate of the first frames it happened to parse,
 *     which can be tens of milliseconds off (2.004970 s for a file of 2.037551 s); the reader
 *     counts the frames instead. This is the one case where it is known to differ from ffprobe.
 *   - Refused: no frame, a frame cut by the end of the file, or fewer frames than the header
 *     declares (an upload cut at a frame boundary; one frame of slack for VBRI, whose count may
 *     include its own frame).
 *
 * music-metadata 12.1.0 was checked for WAV and MP3 against the same corpus and is not used:
 * where it agrees (PCM WAV, Xing/Info MP3) the rule is a few lines; it reports neither a cut WAV
 * data chunk (it returns fractional sample counts) nor a cut MP3 (it returns the header's full
 * duration), it does not read VBRI headers (no duration unless told to scan the whole file, and
 * then a frame count), and for a header-less CBR MP3 it counts frames where ffprobe estimates
 * from the size (1.541 s vs ffprobe's 1.557 s with an ID3v1 tag on a 64 kb/s file).
 */

import type { ProbedMedia } from "./probed_media.ts";
import { parseWithMp4box, type Trak } from "./mp4box_parse.ts";
import {
  ENCODER_SLACK_SECONDS,
  longestPlausible,
  trackSampleSeconds,
} from "./mp4_sample_lengths.ts";
import { ProbeError } from "./probe_error.ts";
import { readWavLayout, WAV_TYPES } from "./wav_layout.ts";

export interface ReadDurationOptions {
  /** The content type sniffed from the bytes: video/mp4, video/quicktime, audio/wav, audio/mpeg … */
  contentType: string;
}

/** Reads the duration of `bytes`; throws ProbeError when the file has no readable duration. */
export function readDurationFromBytes(
  bytes: Uint8Array,
  options: ReadDurationOptions,
): Promise<ProbedMedia> {
  return new Promise((resolve) => resolve(readDuration(bytes, options.contentType)));
}

const MP4_TYPES = new Set([
  "video/mp4",
  "video/quicktime",
  "video/x-m4v",
  "audio/mp4",
  "audio/x-m4a",
  "audio/m4a",
]);
export const MP3_TYPES = new Set(["audio/mpeg", "audio/mp3", "audio/x-mpeg", "audio/mpeg3"]);

function readDuration(bytes: Uint8Array, contentType: string): ProbedMedia {
  const type = contentType.split(";")[0].trim().toLowerCase();
  if (bytes.length === 0) throw new ProbeError("the file is empty");
  if (MP4_TYPES.has(type)) return readMp4(bytes);
  if (WAV_TYPES.has(type)) return readWav(bytes);
  if (MP3_TYPES.has(type)) return readMp3(bytes);
  throw new ProbeError(`durations of '${type}' files cannot be read here`, {
    problem: "unsupported",
  });
}

// --- Rescaling as libavutil does it (av_rescale_rnd with AV_ROUND_NEAR_INF, non-negative) -------

const MICROS = 1_000_000n;

/** round(a × b / c), halves away from zero, on integers. */
function rescale(a: bigint, b: bigint, c: bigint): bigint {
  return (a * b + c / 2n) / c;
}

/** `ticks` of 1/`timescale` s as ffprobe prints them: rounded to the microsecond. */
function ticksToSeconds(ticks: bigint, timescale: bigint): number {
  return Number(rescale(ticks, MICROS, timescale)) / 1e6;
}

function requirePositive(seconds: number, what: string): number {
  if (!(seconds > 0)) {
    throw new ProbeError(`the file has no readable duration (${what})`, { problem: "no_duration" });
  }
  return seconds;
}

// --- MP4 / MOV ---------------------------------------------------------------------------------

const MP4_FORMAT_NAME = "mov,mp4,m4a,3gp,3g2,mj2";

/** Top-level boxes, walked by hand to find truncation and garbage before mp4box sees them. */
function topLevelBoxes(bytes: Uint8Array): Array<{ type: string; start: number; size: number }> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const boxes: Array<{ type: string; start: number; size: number }> = [];
  let offset = 0;
  while (offset < bytes.length) {
    if (bytes.length - offset < 8) {
      if (offset === 0) throw new ProbeError("the file is not an MP4 or MOV file (too short)");
      break; // a few stray bytes after the last box
    }
    const type = String.fromCharCode(...bytes.subarray(offset + 4, offset + 8));
    if (!/^[\x20-\x7e\xa9]{4}$/.test(type)) {
      if (offset === 0) {
        throw new ProbeError("the file is not an MP4 or MOV file (it does not start with a box)");
      }
      break; // junk after the last box (padding some writers leave): ffmpeg ignores it too
    }
    let size = view.getUint32(offset);
    let header = 8;
    if (size === 1) {
      if (bytes.length - offset < 16) {
        throw new ProbeError(`the MP4 or MOV file is truncated inside the header of '${type}'`);
      }
      size = Number(view.getBigUint64(offset + 8));
      header = 16;
    } else if (size === 0) {
      size = bytes.length - offset; // the last box runs to the end of the file
    }
    if (size < header) {
      throw new ProbeError(
        `the MP4 or MOV file is corrupt: box '${type}' at byte ${offset} has size ${size}`,
      );
    }
    if (offset + size > bytes.length) {
      throw new ProbeError(
        `the MP4 or MOV file is truncated: box '${type}' at byte ${offset} declares ${size} bytes, ` +
          `${bytes.length - offset} are present`,
      );
    }
    boxes.push({ type, start: offset, size });
    offset += size;
  }
  return boxes;
}

function streamKind(handler: string): string {
  switch (handler) {
    case "vide":
      return "video";
    case "soun":
      return "audio";
    case "subp":
    case "clcp":
    case "sbtl":
    case "subt":
    case "text":
      return "subtitle";
    default:
      return "data";
  }
}

function readMp4(bytes: Uint8Array): ProbedMedia {
  const boxes = topLevelBoxes(bytes);
  if (!boxes.some((box) => box.type === "moov")) {
    throw new ProbeError(
      "the MP4 or MOV file has no moov box (its index): it is incomplete or not a movie file",
    );
  }
  const { file, problems } = parseWithMp4box(bytes);
  const moov = file.moov;
  if (!moov?.mvhd) {
    throw new ProbeError("the MP4 or MOV file's moov box (its index) is damaged", {
      detail: problems.length ? `mp4box: ${problems.slice(0, 3).join("; ")}` : undefined,
    });
  }
  const traks = moov.traks ?? [];
  const streams = traks.map((trak) => streamKind(trak.mdia?.hdlr?.handler ?? ""));
  const fragmented = (moov.mvex?.trexs?.length ?? 0) > 0;

  if (!fragmented) {
    const timescale = BigInt(moov.mvhd.timescale > 0 ? moov.mvhd.timescale : 1);
    const header = ticksToSeconds(BigInt(moov.mvhd.duration), timescale);
    const seconds = longestPlausible(header, trackSampleSeconds(traks, moov.mvhd.timescale));
    return {
      seconds: requirePositive(seconds, "neither its movie header nor its samples last"),
      streams,
      formatName: MP4_FORMAT_NAME,
    };
  }

  // Fragmented: each track ends where its last fragment ends (mov_read_trun).
  const movieTimescale = BigInt(moov.mvhd.timescale > 0 ? moov.mvhd.timescale : 1);
  const timings = new Map<number, StreamTiming>();
  traks.forEach((trak, index) => {
    const timing = trackTiming(trak, streams[index], movieTimescale);
    if (timing) timings.set(trak.tkhd.track_id, timing);
  });
  const trexs = moov.mvex?.trexs ?? [];
  for (const moof of file.moofs ?? []) {
    for (const traf of moof.trafs ?? []) {
      const id = traf.tfhd?.track_id;
      const timing = timings.get(id);
      if (!timing) continue;
      const trex = trexs.find((entry) => entry.track_id === id);
      const defaultDuration = traf.tfhd.flags & 0x08
        ? traf.tfhd.default_sample_duration
        : trex?.default_sample_duration ?? 0;
      let end = traf.tfdt ? BigInt(traf.tfdt.baseMediaDecodeTime) : timing.running;
      for (const trun of traf.truns ?? []) {
        for (let i = 0; i < trun.sample_count; i++) {
          // Composition offsets are signed for ffmpeg whatever the trun version.
          const offset = trun.flags & 0x800 ? (trun.sample_composition_time_offset[i] ?? 0) | 0 : 0;
          if (offset < 0 && BigInt(-offset) > timing.dtsShift) timing.dtsShift = BigInt(-offset);
          // The first sample's presentation time: its dts shifted by the edit list, plus its
          // composition offset (plus dtsShift, added below once every fragment is read).
          timing.firstPts ??= end - timing.timeOffset + BigInt(offset);
          end += BigInt(trun.flags & 0x100 ? trun.sample_duration[i] ?? 0 : defaultDuration);
        }
      }
      timing.running = end;
      if (end > timing.end) timing.end = end;
    }
  }
  for (const timing of timings.values()) {
    if (timing.firstPts !== undefined) timing.start = timing.firstPts + timing.dtsShift;
  }
  return {
    seconds: requirePositive(
      Number(formatDuration([...timings.values()])) / 1e6,
      "no fragment holds a sample",
    ),
    streams,
    formatName: MP4_FORMAT_NAME,
  };
}

interface StreamTiming {
  kind: string;
  timescale: bigint;
  /** ffmpeg's st->duration: where the track ends, in its timescale, before the edit list. */
  end: bigint;
  /** ffmpeg's st->start_time: the first packet's presentation time; undefined without samples. */
  start?: bigint;
  /** The first sample's dts + composition offset, before dtsShift. */
  firstPts?: bigint;
  /** ffmpeg's sc->dts_shift: the largest negative composition offset, negated (pts = dts +
   * dts_shift + offset, mov_update_dts_shift). */
  dtsShift: bigint;
  /** The edit list's shift (sc->time_offset): media start time less any empty edit. */
  timeOffset: bigint;
  /** Where the next fragment without a tfdt begins. */
  running: bigint;
}

/** A track's timing from the moov alone (mov_read_mdhd, mov_read_elst, mov_build_index). */
function trackTiming(trak: Trak, kind: string, movieTimescale: bigint): StreamTiming | undefined {
  const mdhd = trak.mdia?.mdhd;
  if (!mdhd || !(mdhd.timescale > 0)) return undefined;
  const timescale = BigInt(mdhd.timescale);
  // A 64-bit duration of all ones means "unknown" (read by ffmpeg as -1).
  const end = mdhd.duration > 0 && mdhd.duration < 2 ** 63 ? BigInt(mdhd.duration) : 0n;
  let empty = 0n;
  let mediaStart = 0n;
  const edits = trak.edts?.elst?.entries ?? [];
  const first = edits.length > 0 && edits[0].media_time === -1 ? 1 : 0;
  if (first === 1) empty = BigInt(edits[0].segment_duration);
  if (edits.length > first && edits[first].media_time >= 0) {
    mediaStart = BigInt(edits[first].media_time);
  }
  const timeOffset = empty || mediaStart
    ? mediaStart - rescale(empty, timescale, movieTimescale)
    : 0n;
  // Samples in the moov itself (a fragmented file whose first fragment is the moov's).
  const stbl = trak.mdia?.minf?.stbl;
  let moovTicks = 0n;
  const counts = stbl?.stts?.sample_counts ?? [];
  counts.forEach((count, i) => moovTicks += BigInt(count) * BigInt(stbl!.stts.sample_deltas[i]));
  // mov_read_ctts takes the shift from every entry but the last two.
  const offsets = (stbl?.ctts?.sample_offsets ?? []).map((offset) => offset | 0);
  let dtsShift = 0n;
  offsets.slice(0, -2).forEach((offset) => {
    if (offset < 0 && BigInt(-offset) > dtsShift) dtsShift = BigInt(-offset);
  });
  let firstPts: bigint | undefined;
  if (counts.some((count) => count > 0)) firstPts = -timeOffset + BigInt(offsets[0] ?? 0);
  return { kind, timescale, end, firstPts, dtsShift, timeOffset, running: moovTicks };
}

/** rescale() for signed values, rounding halves away from zero as av_rescale_rnd does. */
function rescaleSigned(a: bigint, b: bigint, c: bigint): bigint {
  return a < 0n ? -rescale(-a, b, c) : rescale(a, b, c);
}

/** The format's duration from its streams' (libavformat/demux.c, update_stream_timings). */
function formatDuration(timings: StreamTiming[]): bigint {
  const none = undefined;
  let start: bigint | undefined = none, startText: bigint | undefined = none;
  let end: bigint | undefined = none, endText: bigint | undefined = none;
  let duration: bigint | undefined = none, durationText: bigint | undefined = none;
  const max = (a: bigint | undefined, b: bigint) => (a === undefined || b > a ? b : a);
  const min = (a: bigint | undefined, b: bigint) => (a === undefined || b < a ? b : a);
  for (const timing of timings) {
    const text = timing.kind !== "video" && timing.kind !== "audio";
    const length = rescaleSigned(timing.end, MICROS, timing.timescale);
    if (timing.start !== undefined) {
      const first = rescaleSigned(timing.start, MICROS, timing.timescale);
      if (text) {
        startText = min(startText, first);
        endText = max(endText, first + length);
      } else {
        start = min(start, first);
        end = max(end, first + length);
      }
    }
    if (text) durationText = max(durationText, length);
    else duration = max(duration, length);
  }
  // Subtitle and data streams stand in when nothing else has timings, or are within a second.
  if (
    start === undefined ||
    (startText !== undefined && start > startText && start - startText < MICROS)
  ) {
    start = startText;
  }
  if (end === undefined || (endText !== undefined && end < endText && endText - end < MICROS)) {
    end = endText;
  }
  if (
    duration === undefined ||
    (durationText !== undefined && duration < durationText && durationText - duration < MICROS)
  ) {
    duration = durationText;
  }
  if (start !== undefined && end !== undefined && end >= start) {
    duration = max(duration, end - start);
  }
  return duration ?? 0n;
}

// --- WAV ---------------------------------------------------------------------------------------

function fourcc(bytes: Uint8Array, offset: number): string {
  return String.fromCharCode(...bytes.subarray(offset, offset + 4));
}

function readWav(bytes: Uint8Array): ProbedMedia {
  const { format, dataBytes } = readWavLayout(bytes);
  if (format.pcmBits === undefined) {
    throw new ProbeError(
      `the WAV file's encoding (format tag 0x${format.tag.toString(16)}, ${format.bits} bits) is ` +
        "not PCM; only PCM WAV durations can be read here",
      { problem: "unsupported" },
    );
  }
  if (format.channels === 0 || format.rate === 0) {
    throw new ProbeError("the WAV file's fmt chunk has no channels or no sample rate");
  }
  const samples = (BigInt(dataBytes) * 8n) / (BigInt(format.channels) * BigInt(format.pcmBits));
  return {
    seconds: requirePositive(ticksToSeconds(samples, BigInt(format.rate)), "no samples"),
    streams: ["audio"],
    formatName: "wav",
  };
}

// --- MP3 ---------------------------------------------------------------------------------------

/** The time base of ffmpeg's MP3 demuxer: a multiple of every MPEG audio sample rate. */
const MP3_TIME_BASE = 14_112_000n;

const BITRATES: Record<string, number[]> = {
  // [version 1 | 2 (2 and 2.5)][layer] in kbit/s, index 1..14
  "1-1": [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  "1-2": [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  "1-3": [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  "2-1": [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  "2-2": [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  "2-3": [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const SAMPLE_RATES = [44100, 48000, 32000];

interface MpegFrame {
  /** MPEG version: 1, 2 or 2.5. */
  version: number;
  layer: number;
  bitrate: number;
  sampleRate: number;
  samplesPerFrame: number;
  size: number;
  mono: boolean;
  /** The header bits that stay the same from frame to frame (mp3dec.c's MP3_MASK). */
  fixed: number;
}

function mpegFrame(bytes: Uint8Array, offset: number): MpegFrame | undefined {
  if (offset + 4 > bytes.length) return undefined;
  const header = ((bytes[offset] << 24) | (bytes[offset + 1] << 16) | (bytes[offset + 2] << 8) |
    bytes[offset + 3]) >>> 0;
  if ((header & 0xffe00000) >>> 0 !== 0xffe00000) return undefined;
  const versionBits = (header >>> 19) & 3;
  const layerBits = (header >>> 17) & 3;
  const bitrateIndex = (header >>> 12) & 15;
  const rateIndex = (header >>> 10) & 3;
  if (versionBits === 1 || layerBits === 0 || bitrateIndex === 0 || bitrateIndex === 15) {
    return undefined; // reserved version or layer, free format, bad bit rate
  }
  if (rateIndex === 3) return undefined;
  const version = versionBits === 3 ? 1 : versionBits === 2 ? 2 : 2.5;
  const layer = 4 - layerBits;
  const bitrate = BITRATES[`${version === 1 ? 1 : 2}-${layer}`][bitrateIndex - 1] * 1000;
  const sampleRate = SAMPLE_RATES[rateIndex] / (version === 1 ? 1 : version === 2 ? 2 : 4);
  const padding = (header >>> 9) & 1;
  let samplesPerFrame: number;
  let size: number;
  if (layer === 1) {
    samplesPerFrame = 384;
    size = (Math.floor((12 * bitrate) / sampleRate) + padding) * 4;
  } else {
    samplesPerFrame = layer === 3 && version !== 1 ? 576 : 1152;
    size = Math.floor((samplesPerFrame / 8) * bitrate / sampleRate) + padding;
  }
  return {
    version,
    layer,
    bitrate,
    sampleRate,
    samplesPerFrame,
    size,
    mono: ((header >>> 6) & 3) === 3,
    fixed: (header & 0xfffe0ccf) >>> 0,
  };
}

/** The end of the ID3v2 tags at the start, and the number of pictures (APIC/PIC) in them. */
function skipId3v2(bytes: Uint8Array): { end: number; pictures: number } {
  let offset = 0;
  let pictures = 0;
  while (
    offset + 10 <= bytes.length && bytes[offset] === 0x49 && bytes[offset + 1] === 0x44 &&
    bytes[offset + 2] === 0x33
  ) {
    const major = bytes[offset + 3];
    const flags = bytes[offset + 5];
    const size = syncsafe(bytes, offset + 6);
    const end = offset + 10 + size + (flags & 0x10 ? 10 : 0);
    if (end > bytes.length) {
      throw new ProbeError(
        `the MP3 file is truncated inside its ID3v2 tag (${size} bytes declared at byte ${offset})`,
      );
    }
    pictures += countPictures(bytes.subarray(offset + 10, offset + 10 + size), major, flags);
    offset = end;
  }
  return { end: offset, pictures };
}

function syncsafe(bytes: Uint8Array, offset: number): number {
  return ((bytes[offset] & 0x7f) << 21) | ((bytes[offset + 1] & 0x7f) << 14) |
    ((bytes[offset + 2] & 0x7f) << 7) | (bytes[offset + 3] & 0x7f);
}

/** Pictures in one ID3v2 tag body: ffprobe lists each as an attached-picture video stream. */
function countPictures(tag: Uint8Array, major: number, flags: number): number {
  if (flags & 0x80) return 0; // unsynchronised tag: frame sizes cannot be walked as they are
  let offset = 0;
  if (flags & 0x40 && major >= 3 && tag.length >= 4) {
    const extended = major === 4
      ? syncsafe(tag, 0)
      : new DataView(tag.buffer, tag.byteOffset).getUint32(0) + 4;
    offset = extended;
  }
  let pictures = 0;
  const idLength = major === 2 ? 3 : 4;
  const headerLength = major === 2 ? 6 : 10;
  while (offset + headerLength <= tag.length && tag[offset] !== 0) {
    const id = String.fromCharCode(...tag.subarray(offset, offset + idLength));
    const size = major === 2
      ? (tag[offset + 3] << 16) | (tag[offset + 4] << 8) | tag[offset + 5]
      : major === 4
      ? syncsafe(tag, offset + 4)
      : ((tag[offset + 4] << 24) | (tag[offset + 5] << 16) | (tag[offset + 6] << 8) |
        tag[offset + 7]) >>> 0;
    if (id === "APIC" || id === "PIC") pictures++;
    offset += headerLength + size;
  }
  return pictures;
}

/** The first frame of the stream at or after `from`: one whose next frame has the same header. */
function firstFrame(
  bytes: Uint8Array,
  from: number,
): { offset: number; frame: MpegFrame } | undefined {
  const limit = Math.min(bytes.length, from + 64 * 1024);
  for (let offset = from; offset < limit; offset++) {
    if (bytes[offset] !== 0xff) continue;
    const frame = mpegFrame(bytes, offset);
    if (!frame) continue;
    const next = mpegFrame(bytes, offset + frame.size);
    if (next && next.fixed === frame.fixed) return { offset, frame };
    // A file of a single frame: the frame ends exactly at the end of the file.
    if (offset + frame.size === bytes.length) return { offset, frame };
  }
  return undefined;
}

interface VbrHeader {
  kind: "Xing" | "Info" | "VBRI";
  frames?: number;
  bytes?: number;
}

function vbrHeader(bytes: Uint8Array, offset: number, frame: MpegFrame): VbrHeader | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = offset + frame.size;
  // Xing/Info sits after the side information: 32/17 bytes (MPEG-1 stereo/mono), 17/9 (MPEG-2).
  const side = frame.version === 1 ? (frame.mono ? 17 : 32) : (frame.mono ? 9 : 17);
  const xing = offset + 4 + side;
  if (xing + 8 <= end) {
    const id = fourcc(bytes, xing);
    if (id === "Xing" || id === "Info") {
      const flags = view.getUint32(xing + 4);
      let field = xing + 8;
      const header: VbrHeader = { kind: id };
      if (flags & 1 && field + 4 <= end) {
        header.frames = view.getUint32(field);
        field += 4;
      }
      if (flags & 2 && field + 4 <= end) header.bytes = view.getUint32(field);
      return header;
    }
  }
  // VBRI (Fraunhofer) is always 32 bytes after the frame header.
  const vbri = offset + 4 + 32;
  if (vbri + 18 <= end && fourcc(bytes, vbri) === "VBRI" && view.getUint16(vbri + 4) === 1) {
    return { kind: "VBRI", bytes: view.getUint32(vbri + 10), frames: view.getUint32(vbri + 14) };
  }
  return undefined;
}

function isTrailingTag(bytes: Uint8Array, offset: number): boolean {
  const rest = bytes.length - offset;
  if (rest === 128 && fourcc(bytes, offset).startsWith("TAG")) return true; // ID3v1
  const head = String.fromCharCode(...bytes.subarray(offset, offset + 8));
  return head === "APETAGEX" || head.startsWith("LYRICS") || head.startsWith("TAG");
}

/**
 * Walks the audio frames from `start`; throws ProbeError when the last one is cut. Tag frames
 * (Xing/Info/VBRI, as in files joined end to end) are skipped: they hold no audio.
 */
function scanFrames(
  bytes: Uint8Array,
  start: number,
): { frames: number; samples: number; cbr: boolean; bitrate: number } {
  let offset = start;
  let frames = 0;
  let samples = 0;
  let firstBitrate = 0;
  let bitrate = 0;
  let cbr = true;
  while (offset < bytes.length) {
    const frame = mpegFrame(bytes, offset);
    if (!frame) {
      if (isTrailingTag(bytes, offset)) break;
      // Junk between frames: resync on the next pair of frames, as a decoder would.
      const next = firstFrame(bytes, offset + 1);
      if (!next) break;
      offset = next.offset;
      continue;
    }
    if (offset + frame.size > bytes.length) {
      throw new ProbeError(
        `the MP3 file is truncated: the frame at byte ${offset} needs ${frame.size} bytes, ` +
          `${bytes.length - offset} are present`,
      );
    }
    if (!(frame.layer === 3 && vbrHeader(bytes, offset, frame))) {
      if (bitrate && frame.bitrate !== bitrate) cbr = false;
      bitrate = frame.bitrate;
      firstBitrate ||= bitrate;
      frames++;
      samples += frame.samplesPerFrame;
    }
    offset += frame.size;
  }
  return { frames, samples, cbr, bitrate: firstBitrate };
}

function readMp3(bytes: Uint8Array): ProbedMedia {
  const id3 = skipId3v2(bytes);
  const streams = ["audio", ...Array<string>(id3.pictures).fill("video")];
  const first = firstFrame(bytes, id3.end);
  if (!first) {
    throw new ProbeError(
      bytes.length - id3.end < 4
        ? "the MP3 file holds no audio frame (truncated after its tags)"
        : "the file is not an MP3 file: no MPEG audio frame found",
    );
  }
  // Like mp3dec.c, look for the Xing/Info/VBRI frame right after the tags only; its header may
  // differ from the audio frames' (ffmpeg writes it with its own channel mode).
  const tagFrame = mpegFrame(bytes, id3.end);
  const header = tagFrame?.layer === 3 ? vbrHeader(bytes, id3.end, tagFrame) : undefined;
  const { offset, frame } = header && tagFrame ? { offset: id3.end, frame: tagFrame } : first;
  const audioStart = header ? offset + frame.size : offset;
  const scan = scanFrames(bytes, audioStart);
  // (A VBRI count may or may not include the VBRI frame itself: one frame of slack.)
  const slack = header?.kind === "VBRI" ? 1 : 0;
  if (header?.frames !== undefined && scan.frames + slack < header.frames) {
    throw new ProbeError(
      `the MP3 file is truncated: its ${header.kind} header declares ${header.frames} frames, ` +
        `${scan.frames} are present`,
    );
  }
  // ffmpeg drops a Xing/Info frame count the file size contradicts by more than 1/16.
  const fileBytes = bytes.length - offset;
  const contradicted = header?.kind !== "VBRI" && header?.bytes !== undefined &&
    fileBytes > header.bytes && fileBytes - header.bytes > header.bytes >> 4;
  let micros: bigint;
  if (header?.frames && !contradicted) {
    const ticks = (BigInt(header.frames) * BigInt(frame.samplesPerFrame) * MP3_TIME_BASE) /
      BigInt(frame.sampleRate);
    micros = rescale(ticks, MICROS, MP3_TIME_BASE);
    // The count is a field the client writes: frames present beyond it outvote it.
    const counted = rescale(BigInt(scan.samples), MICROS, BigInt(frame.sampleRate));
    if (Number(counted - micros) / 1e6 > ENCODER_SLACK_SECONDS) micros = counted;
  } else if (scan.cbr && scan.bitrate) {
    const ticks = rescale(
      BigInt(bytes.length - audioStart),
      8n * MP3_TIME_BASE,
      BigInt(scan.bitrate),
    );
    micros = rescale(ticks, MICROS, MP3_TIME_BASE);
  } else {
    micros = rescale(BigInt(scan.samples), MICROS, BigInt(frame.sampleRate));
  }
  return {
    seconds: requirePositive(Number(micros) / 1e6, "no audio frame"),
    streams,
    formatName: "mp3",
  };
}
