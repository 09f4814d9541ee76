import { assertEquals } from "../../helpers/assert.ts";
import {
  multiplierFromNumber,
  multiplierText,
  type PriceTier,
  tieredCeil,
  tieredPriceText,
} from "../../../core/billing/price_tier.ts";
import { textCost } from "../../../core/billing/text_price.ts";
import { imageCost } from "../../../core/billing/image_price.ts";
import { videoBill } from "../../../core/billing/video_price.ts";
import { imageReceipt, textReceipt, videoReceipt } from "../../../core/billing/receipt.ts";
import { callerPriceText } from "../../../core/billing/price_text.ts";

const tier = (multiplier: number, group = "vip"): PriceTier => ({ group, multiplier });
const VIP = tier(8_000);
const RESELLER = tier(6_000, "reseller");
const PREMIUM = tier(12_500, "premium");
const BASE = tier(10_000, "default");

Deno.test("multiplierFromNumber reads up to 4 decimals exactly and refuses the rest", () => {
  assertEquals(multiplierFromNumber(0.8), 8_000);
  assertEquals(multiplierFromNumber(0.6), 6_000);
  assertEquals(multiplierFromNumber(1.25), 12_500);
  // 1.1 × 10000 is 11000.000000000002 in floats; the decimal form is read instead.
  assertEquals(multiplierFromNumber(1.1), 11_000);
  assertEquals(multiplierFromNumber(0.0001), 1);
  assertEquals(multiplierFromNumber(10), 100_000);
  assertEquals(multiplierFromNumber(1), 10_000);
  for (const bad of [0, -1, 11, 10.0001, 0.00001, 1.23456, NaN, Infinity, "abc", "0.8", null]) {
    assertEquals(typeof multiplierFromNumber(bad), "object", String(bad));
  }
});

Deno.test("multiplierText and tieredPriceText are exact decimals", () => {
  assertEquals(multiplierText(8_000), "0.8");
  assertEquals(multiplierText(12_500), "1.25");
  assertEquals(multiplierText(10_000), "1");
  assertEquals(multiplierText(1), "0.0001");
  assertEquals(tieredPriceText(40_000, VIP), "32000");
  assertEquals(tieredPriceText(3, VIP), "2.4");
  assertEquals(tieredPriceText(3), "3");
});

Deno.test("tieredCeil rounds up once, in integers", () => {
  // 1.2 units × 0.8 = 0.96 → 1; rounding the base first would give ceil(2 × 0.8) = 2.
  assertEquals(tieredCeil(12n, 10n, VIP), 1);
  // 5 × 0.6 is 3.0000000000000004 in floats (ceil 4); exactly 3 here.
  assertEquals(tieredCeil(5n, 1n, RESELLER), 3);
  assertEquals(tieredCeil(10n, 1n, tier(7_000)), 7);
  assertEquals(tieredCeil(7n, 1n, PREMIUM), 9); // 8.75
  assertEquals(tieredCeil(7n, 1n), 7);
});

Deno.test("textCost at a tier: the base exact cost × m, rounded up once; ×1 is today's cost", () => {
  const price = { input: 100_000, output: 300_000 };
  const usage = { input_tokens: 12, cached_input_tokens: 0, output_tokens: 0 };
  assertEquals(textCost(price, usage), 2); // 1.2 → 2
  assertEquals(textCost(price, usage, VIP), 1); // 0.96 → 1
  assertEquals(textCost(price, usage, BASE), textCost(price, usage));
  const big = { input: 1_000_000, output: 2_000_000, cached_input: 500_000 };
  const counted = { input_tokens: 1_000, cached_input_tokens: 200, output_tokens: 501 };
  // 800 + 100 + 1002 = 1902 units; × 0.8 = 1521.6 → 1522; × 0.6 = 1141.2 → 1142; × 1.25 = 2377.5 → 2378.
  assertEquals(textCost(big, counted), 1_902);
  assertEquals(textCost(big, counted, VIP), 1_522);
  assertEquals(textCost(big, counted, RESELLER), 1_142);
  assertEquals(textCost(big, counted, PREMIUM), 2_378);
});

Deno.test("textCost at a tier stays exact for token counts far past 2^53 unit-tokens", () => {
  const price = { input: 15_000_000, output: 75_000_000 };
  const usage = { input_tokens: 9_000_000_000_000, cached_input_tokens: 0, output_tokens: 1 };
  // (9e12 × 15e6 + 75e6) / 1e6 = 135000000000075 units; × 0.8 = 108000000000060.
  assertEquals(textCost(price, usage), 135_000_000_000_075);
  assertEquals(textCost(price, usage, VIP), 108_000_000_000_060);
  assertEquals(textCost(price, usage, RESELLER), 81_000_000_000_045);
});

Deno.test("imageCost and videoBill at a tier", () => {
  const image = { per_image: 40_000, tiers: { "1024x1024/high": 5 } };
  assertEquals(imageCost(image, { size: "1024x1024", quality: "auto", count: 2 }, VIP), 64_000);
  assertEquals(imageCost(image, { size: "1024x1024", quality: "high", count: 1 }, RESELLER), 3);
  assertEquals(imageCost(image, { size: "1024x1024", quality: "auto", count: 2 }), 80_000);
  const task = { durationSeconds: 5, referenceSeconds: [1.2345] };
  // 100000 × 6235 ms / 1000 = 623500; × 0.8 = 498800.
  assertEquals(videoBill({ per_second: 100_000 }, task).amount, 623_500);
  assertEquals(videoBill({ per_second: 100_000 }, task, VIP).amount, 498_800);
  assertEquals(
    videoBill({ per_second: 7 }, { durationSeconds: 1, referenceSeconds: [] }, VIP)
      .amount,
    6,
  ); // 5.6
  assertEquals(videoBill({ per_task: 500_000 }, task, PREMIUM).amount, 625_000);
});

Deno.test("receipts show the multiplier in the formula; a ×1 receipt is as it was", () => {
  const price = { input: 1_000_000, output: 2_000_000, cached_input: 500_000 };
  const usage = { input_tokens: 1_000, cached_input_tokens: 200, output_tokens: 501 };
  const plain = textReceipt(price, usage);
  assertEquals(plain.multipliers, {});
  assertEquals(
    plain.formula,
    "ceil((800 uncached input × 1000000 + 200 cached input × 500000 + 501 output × 2000000) / 1000000) = 1902",
  );
  assertEquals(textReceipt(price, usage, BASE), plain);
  const vip = textReceipt(price, usage, VIP);
  assertEquals(vip.multipliers, { price_multiplier: 0.8 });
  assertEquals(
    vip.formula,
    "ceil((800 uncached input × 1000000 + 200 cached input × 500000 + 501 output × 2000000) × 0.8 (group vip) / 1000000) = 1522",
  );
  assertEquals(vip.amount, 1_522);

  const job = { size: "1024x1024", quality: "auto", count: 2 };
  assertEquals(imageReceipt({ per_image: 40_000 }, job).formula, "2 images × 40000 = 80000");
  assertEquals(
    imageReceipt({ per_image: 40_000 }, job, VIP).formula,
    "ceil(2 images × 40000 × 0.8 (group vip)) = 64000",
  );
  const task = { durationSeconds: 5, referenceSeconds: [] };
  assertEquals(
    videoReceipt({ per_second: 100_000 }, task).formula,
    "ceil(100000 × (5000 ms output) / 1000) = 500000",
  );
  assertEquals(
    videoReceipt({ per_second: 100_000 }, task, RESELLER).formula,
    "ceil(100000 × (5000 ms output) × 0.6 (group reseller) / 1000) = 300000",
  );
  assertEquals(videoReceipt({ per_task: 500_000 }, task).formula, "500000 per task = 500000");
  assertEquals(
    videoReceipt({ per_task: 500_000 }, task, PREMIUM).formula,
    "ceil(500000 per task × 1.25 (group premium)) = 625000",
  );
});

Deno.test("callerPriceText: the price the caller pays, with its tier", () => {
  const text = { kind: "text" as const, price: { input: 3, output: 15 } };
  assertEquals(
    callerPriceText(text),
    "Price: input 3, cached input 3, output 15 units per million tokens.",
  );
  assertEquals(
    callerPriceText(text, VIP),
    "Price (group vip ×0.8): input 2.4, cached input 2.4, output 12 units per million tokens.",
  );
  assertEquals(
    callerPriceText({ kind: "image", price: { per_image: 40_000 } }, VIP),
    "Price (group vip ×0.8): 32000 units per image.",
  );
  assertEquals(
    callerPriceText({ kind: "video", price: { per_second: 100_000 } }, RESELLER),
    "Price (group reseller ×0.6): 60000 units per second.",
  );
});
