/**
 * The money of one transcription or translation (pure): the hold made before the upstream call
 * and the pricing settled after it, by the model's price unit.
 *   - per_second: the input audio's seconds as the gateway read them, billed to the millisecond;
 *     the hold is the bill.
 *   - per token: the upstream's usage (`usage.input_tokens` / `output_tokens`, as gpt-4o-transcribe
 *     reports it); when it reports none it can be believed, the gateway's estimate (10 input tokens
 *     per second of audio plus a token per 4 prompt characters, a token per 4 transcript
 *     characters out). The hold bounds it: 20 tokens per second of audio (or, when the duration
 *     cannot be read, per 1,000 bytes: 8 kb/s, the lowest bit rate a speech file has) plus the
 *     prompt's bytes, and the model's max_output_tokens (default 2,000) out.
 */

import type { AudioPrice } from "../billing/audio_price.ts";
import { audioSecondsCost, audioTokensCost, billedMsOf } from "../billing/audio_price.ts";
import type { PriceTier } from "../billing/price_tier.ts";
import {
  audioSecondsReceipt,
  audioTokensReceipt,
  type ReceiptPricing,
} from "../billing/receipt.ts";
import type { TokenUsage, UsageSource } from "../billing/usage.ts";
import type { ReportedUsage } from "./transcription_answer.ts";

/** Audio tokens per second the bill estimates with, and the hold's bound per second. */
export const ESTIMATED_TOKENS_PER_SECOND = 10;
export const BOUND_TOKENS_PER_SECOND = 20;
/** Output tokens held for when the catalog gives no max_output_tokens. */
export const DEFAULT_TRANSCRIPT_OUTPUT_TOKENS = 2_000;

export interface TranscriptionInput {
  /** The audio's seconds as read, or undefined when they could not be (per-token models only). */
  seconds: number | undefined;
  bytes: number;
  /** The prompt field, if any. */
  prompt: string;
  /** The catalog's max_output_tokens. */
  maxOutputTokens?: number;
}

/** The seconds a hold assumes: as read, else the file's bytes at 8 kb/s. */
function boundSeconds(input: TranscriptionInput): number {
  return input.seconds ?? input.bytes / 1000;
}

/** The most tokens a per-token request is held for: its input and output bounds. */
export function tokenBounds(input: TranscriptionInput) {
  return {
    input_tokens: Math.ceil(boundSeconds(input) * BOUND_TOKENS_PER_SECOND) +
      new TextEncoder().encode(input.prompt).length + 16,
    output_tokens: input.maxOutputTokens ?? DEFAULT_TRANSCRIPT_OUTPUT_TOKENS,
  };
}

/** The units held before the upstream call. */
export function transcriptionHold(
  price: AudioPrice,
  input: TranscriptionInput,
  tier?: PriceTier,
): number {
  if ("per_second" in price) return audioSecondsCost(price, billedMsOf(input.seconds!), tier);
  if ("input" in price) return audioTokensCost(price, tokenBounds(input), tier);
  throw new Error("a per_character model has no transcription price");
}

/** What the request is billed once the answer is in. */
export interface TranscriptionBill {
  pricing: ReceiptPricing;
  /** Token models: the usage billed and where it came from. */
  usage?: TokenUsage;
  usageSource?: UsageSource;
  /** Per-second models: the seconds billed. */
  billedSeconds?: number;
}

/**
 * The bill of a request whose answer reported `reported` usage (if any) and delivered
 * `transcriptChars` characters of transcript.
 */
export function transcriptionBill(
  price: AudioPrice,
  input: TranscriptionInput,
  answer: { reported?: ReportedUsage; transcriptChars: number },
  tier?: PriceTier,
): TranscriptionBill {
  if ("per_second" in price) {
    return {
      pricing: audioSecondsReceipt(price, input.seconds!, tier),
      billedSeconds: billedMsOf(input.seconds!) / 1000,
    };
  }
  if (!("input" in price)) throw new Error("a per_character model has no transcription price");
  const bounds = tokenBounds(input);
  const reported = answer.reported;
  const believable = reported && reported.input_tokens > 0 &&
    reported.input_tokens <= bounds.input_tokens * 4 + 10_000 &&
    reported.output_tokens <= bounds.output_tokens * 2 + 1_000 &&
    !(reported.output_tokens === 0 && answer.transcriptChars > 0);
  const tokens = believable ? reported : {
    input_tokens: Math.min(
      bounds.input_tokens,
      Math.ceil(boundSeconds(input) * ESTIMATED_TOKENS_PER_SECOND) +
        Math.ceil(input.prompt.length / 4),
    ),
    output_tokens: Math.min(bounds.output_tokens, Math.ceil(answer.transcriptChars / 4)),
  };
  return {
    pricing: audioTokensReceipt(price, tokens, tier),
    usage: { ...tokens, cached_input_tokens: 0 },
    usageSource: believable ? "upstream" : "estimate",
  };
}
