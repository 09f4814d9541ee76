/**
 * What an audio request costs (pure), by the model's price unit: per second of input audio (read
 * by the gateway, billed to the millisecond), per million tokens of the upstream's usage, or per
 * character of input text (speech). Each amount is rounded up to a whole unit once, at the
 * caller's price tier.
 */

import type { AudioPrice } from "./price_schema.ts";
import { type PriceTier, tieredCeil } from "./price_tier.ts";

export type { AudioPrice };

/** The price unit of an audio model. */
export type AudioPriceUnit = "per_second" | "per_token" | "per_character";

export function audioPriceUnit(price: AudioPrice): AudioPriceUnit {
  if ("per_second" in price) return "per_second";
  if ("per_character" in price) return "per_character";
  return "per_token";
}

/** An audio's seconds as billed: rounded to the nearest millisecond. */
export function billedMsOf(seconds: number): number {
  return Math.round(seconds * 1000);
}

/** Units for `billedMs` milliseconds at `per_second`. */
export function audioSecondsCost(
  price: { per_second: number },
  billedMs: number,
  tier?: PriceTier,
): number {
  return tieredCeil(BigInt(price.per_second) * BigInt(billedMs), 1000n, tier);
}

/** Units for `input` and `output` tokens at per-million-token prices. */
export function audioTokensCost(
  price: { input: number; output: number },
  usage: { input_tokens: number; output_tokens: number },
  tier?: PriceTier,
): number {
  const total = BigInt(usage.input_tokens) * BigInt(price.input) +
    BigInt(usage.output_tokens) * BigInt(price.output);
  return tieredCeil(total, 1_000_000n, tier);
}

/** Units for `characters` of input text at `per_character`. */
export function audioCharactersCost(
  price: { per_character: number },
  characters: number,
  tier?: PriceTier,
): number {
  return tieredCeil(BigInt(price.per_character) * BigInt(characters), 1n, tier);
}
