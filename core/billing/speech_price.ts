/** What speech costs: the model's `per_character` price × the characters of `input`. Pure. */

import type { AudioPrice } from "./price_schema.ts";
import { type PriceTier, tieredCeil } from "./price_tier.ts";

export type SpeechPrice = Extract<AudioPrice, { per_character: number }>;

/** Whether an audio model's price is a speech price. */
export function isSpeechPrice(price: unknown): price is SpeechPrice {
  return typeof price === "object" && price !== null && "per_character" in price;
}

export { speechCharacters } from "../jobs/speech_job.ts";

/** Units for `characters` at `price` and the caller's price `tier` (default ×1), rounded up once. */
export function speechCost(price: SpeechPrice, characters: number, tier?: PriceTier): number {
  return tieredCeil(BigInt(price.per_character) * BigInt(characters), 1n, tier);
}
