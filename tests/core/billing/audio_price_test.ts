import { assertEquals } from "../../helpers/assert.ts";
import {
  audioCharactersCost,
  audioPriceUnit,
  audioSecondsCost,
  audioTokensCost,
  billedMsOf,
} from "../../../core/billing/audio_price.ts";
import {
  audioCharactersReceipt,
  audioSecondsReceipt,
  audioTokensReceipt,
} from "../../../core/billing/receipt.ts";
import { modelInputSchema } from "../../../core/channels/catalog.ts";

const VIP = { group: "vip", multiplier: 8000 };

Deno.test("audio price units: per second, per token, per character", () => {
  assertEquals(audioPriceUnit({ per_second: 100 }), "per_second");
  assertEquals(audioPriceUnit({ input: 1, output: 2 }), "per_token");
  assertEquals(audioPriceUnit({ per_character: 15 }), "per_character");
});

Deno.test("per second: billed to the millisecond, rounded up once, at the tier", () => {
  assertEquals(billedMsOf(2.0004), 2000);
  assertEquals(billedMsOf(2.0005), 2001);
  assertEquals(audioSecondsCost({ per_second: 6000 }, 2500), 15_000);
  assertEquals(audioSecondsCost({ per_second: 3 }, 1001), 4);
  assertEquals(audioSecondsCost({ per_second: 6000 }, 2500, VIP), 12_000);
  const receipt = audioSecondsReceipt({ per_second: 6000 }, 2.5, VIP);
  assertEquals(
    receipt.formula,
    "ceil(6000 × 2500 ms input audio × 0.8 (group vip) / 1000) = 12000",
  );
  assertEquals(receipt.units, { input_seconds: 2.5, billed_seconds: 2.5 });
  assertEquals(receipt.multipliers, { price_multiplier: 0.8 });
});

Deno.test("per token: input and output per million, rounded up once", () => {
  const price = { input: 2_500_000, output: 10_000_000 };
  assertEquals(audioTokensCost(price, { input_tokens: 81, output_tokens: 7 }), 273);
  assertEquals(audioTokensCost({ input: 1, output: 1 }, { input_tokens: 1, output_tokens: 0 }), 1);
  const receipt = audioTokensReceipt(price, { input_tokens: 81, output_tokens: 7 });
  assertEquals(
    receipt.formula,
    "ceil((81 input × 2500000 + 7 output × 10000000) / 1000000) = 273",
  );
  assertEquals(receipt.amount, 273);
});

Deno.test("per character (speech): characters × price", () => {
  assertEquals(audioCharactersCost({ per_character: 15 }, 100), 1500);
  assertEquals(audioCharactersCost({ per_character: 15 }, 100, VIP), 1200);
  assertEquals(
    audioCharactersReceipt({ per_character: 15 }, 100).formula,
    "100 characters × 15 = 1500",
  );
});

Deno.test("the catalog takes kind audio with each price unit, and no other price", () => {
  for (const price of [{ per_second: 100 }, { input: 1, output: 2 }, { per_character: 15 }]) {
    assertEquals(modelInputSchema.safeParse({ kind: "audio", price }).success, true);
  }
  for (const price of [{ per_image: 1 }, { input: 1 }, { per_second: 1, per_character: 1 }]) {
    const parsed = modelInputSchema.safeParse({ kind: "audio", price });
    assertEquals(parsed.success, false, JSON.stringify(price));
  }
});
