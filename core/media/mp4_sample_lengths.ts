/**
 * How long an MP4/MOV's samples last, whatever its duration fields say. The movie header (mvhd),
 * the track and media headers (tkhd, mdhd) and the edit lists are numbers the client writes: a
 * real 60 s video with its mvhd set to 2 s reads 2 s to ffprobe 5.1's format duration. The sample
 * tables (stts: each sample's duration) are what a decoder plays, so both duration readers bill
 * by the longest of the header and the tracks' samples:
 *
 *   - A video or audio track lasts its empty edit (a delay before it starts) plus the sum of its
 *     samples' durations (or its mdhd duration, if longer), less the start its edit list trims
 *     (an encoder's priming: AAC's 1,024 samples), counted up to ENCODER_SLACK_SECONDS.
 *   - That counts when it is longer than the header by more than ENCODER_SLACK_SECONDS: honest
 *     encoders leave a little more in the samples than their headers show (priming and padding
 *     that the edit list hides), and the header's own value is what ffprobe 5.1 reports, so
 *     honest files keep ffprobe's seconds to the millisecond. A forged header can hide at most
 *     twice the slack.
 *
 * An edit list that hides more of a track than that (a 60 s track shown for 2 s) is not believed:
 * the file is measured by its samples, as if the edit list were not there.
 */

import type { Trak } from "./mp4box_parse.ts";
import { parseWithMp4box } from "./mp4box_parse.ts";

/** What encoders leave beyond a file's stated length, and what an edit list may trim at a start. */
export const ENCODER_SLACK_SECONDS = 0.25;

const MICROS = 1_000_000n;

function rescale(a: bigint, b: bigint, c: bigint): bigint {
  return (a * b + c / 2n) / c;
}

/** The seconds each video and audio track's samples last (two per track: stts, and mdhd). */
export function trackSampleSeconds(traks: readonly Trak[], movieTimescale: number): number[] {
  const lengths: number[] = [];
  const movie = BigInt(movieTimescale > 0 ? movieTimescale : 1);
  for (const trak of traks) {
    const handler = trak.mdia?.hdlr?.handler;
    const mdhd = trak.mdia?.mdhd;
    if ((handler !== "vide" && handler !== "soun") || !mdhd || !(mdhd.timescale > 0)) continue;
    const timescale = BigInt(mdhd.timescale);
    const stts = trak.mdia?.minf?.stbl?.stts;
    let samples = 0n;
    (stts?.sample_counts ?? []).forEach((count, i) => {
      samples += BigInt(count) * BigInt(stts!.sample_deltas[i] ?? 0);
    });
    // A 64-bit duration of all ones means "unknown".
    const media = mdhd.duration > 0 && mdhd.duration < 2 ** 63 ? BigInt(mdhd.duration) : 0n;
    const edits = trak.edts?.elst?.entries ?? [];
    let empty = 0n;
    let first = 0;
    if (edits.length > 0 && edits[0].media_time === -1) {
      empty = BigInt(edits[0].segment_duration);
      first = 1;
    }
    const mediaStart = edits.length > first && edits[first].media_time > 0
      ? BigInt(edits[first].media_time)
      : 0n;
    const slack = rescale(BigInt(Math.round(ENCODER_SLACK_SECONDS * 1e6)), timescale, MICROS);
    const trim = mediaStart < slack ? mediaStart : slack;
    for (const ticks of [samples, media]) {
      if (ticks <= trim) continue;
      const micros = rescale(empty, MICROS, movie) + rescale(ticks - trim, MICROS, timescale);
      lengths.push(Number(micros) / 1e6);
    }
  }
  return lengths;
}

/** The sample lengths of the tracks in a moov box on its own (its bytes, header included). */
export function moovSampleSeconds(moov: Uint8Array): number[] {
  const { file } = parseWithMp4box(moov);
  if (!file.moov?.mvhd) return [];
  return trackSampleSeconds(file.moov.traks ?? [], file.moov.mvhd.timescale);
}

/** `headerSeconds`, unless a track's samples last longer by more than the slack: then those. */
export function longestPlausible(headerSeconds: number, sampleSeconds: readonly number[]): number {
  const beyond = sampleSeconds.filter((seconds) => seconds > headerSeconds + ENCODER_SLACK_SECONDS);
  return Math.max(headerSeconds, ...beyond);
}
