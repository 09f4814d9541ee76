/** What speech costs: the model's `per_character` price × the characters of `input`. Pure. */

import type { AudioPrice } from "./price_schema.ts";

export type SpeechPrice = Extract<AudioPrice, { per_character: number }>;

/** Whether an audio model's price is a speech price. */
export function isSpeechPrice(price: unknown): price is SpeechPrice {
  return typeof price === "object" && price !== null && "per_character" in price;
}

export { speechCharacters } from "../jobs/speech_job.ts";

/** Units for `characters` at `price` and the caller's `tier`: the audio per-character cost. */
export { audioCharactersCost as speechCost } from "./audio_price.ts";
