import { assertEquals } from "../../helpers/assert.ts";
import { isSpeechPrice, speechCharacters, speechCost } from "../../../core/billing/speech_price.ts";
import { audioCharactersReceipt } from "../../../core/billing/receipt.ts";

Deno.test("speech price: characters are code points; the cost is characters × per_character", () => {
  assertEquals(speechCharacters("hello"), 5);
  assertEquals(
    speechCharacters("🎙️ ok"),
    5,
    "a microphone and its variation selector, space, o, k",
  );
  assertEquals(speechCharacters("𝄞"), 1, "one code point outside the BMP is one character");
  assertEquals(speechCost({ per_character: 15 }, 74), 1110);
  assertEquals(speechCost({ per_character: 0 }, 74), 0);
});

Deno.test("speech price: a group multiplier applies, rounded up once", () => {
  const tier = { group: "vip", multiplier: 8_000 };
  assertEquals(speechCost({ per_character: 15 }, 3, tier), 36);
  assertEquals(speechCost({ per_character: 15 }, 1, tier), 12);
  const receipt = audioCharactersReceipt({ per_character: 15 }, 3, {
    group: "vip",
    multiplier: 8_333,
  });
  assertEquals(receipt.formula, "ceil(3 characters × 15 × 0.8333 (group vip)) = 38");
  assertEquals(receipt.units, { input_characters: 3 });
  assertEquals(receipt.multipliers, { price_multiplier: 0.8333 });
});

Deno.test("speech price: only a per_character price is a speech price", () => {
  assertEquals(isSpeechPrice({ per_character: 1 }), true);
  assertEquals(isSpeechPrice({ per_second: 1 }), false);
  assertEquals(isSpeechPrice({ input: 1, output: 1 }), false);
});
