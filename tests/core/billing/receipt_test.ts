import { assertEquals } from "../../helpers/assert.ts";
import {
  failedTaskPricing,
  imageReceipt,
  receiptOf,
  textReceipt,
  videoReceipt,
} from "../../../core/billing/receipt.ts";
import { textCost } from "../../../core/billing/text_price.ts";
import { videoBill } from "../../../core/billing/video_price.ts";

Deno.test("textReceipt() gives textCost's amount and a formula with the same numbers", () => {
  const price = { input: 150_000, output: 600_000, cached_input: 75_000 };
  const usage = { input_tokens: 1_001, cached_input_tokens: 200, output_tokens: 33 };
  const receipt = textReceipt(price, usage);
  assertEquals(receipt.amount, textCost(price, usage));
  assertEquals(
    receipt.formula,
    `ceil((801 uncached input × 150000 + 200 cached input × 75000 + 33 output × 600000) / 1000000) = ${receipt.amount}`,
  );
  assertEquals(receipt.units.reasoning_tokens, null);
});

Deno.test("videoReceipt() bills references to the millisecond like videoBill()", () => {
  const task = { durationSeconds: 5, referenceSeconds: [3.0004, 2.5006] };
  const receipt = videoReceipt({ per_second: 100_000 }, task);
  assertEquals(receipt.amount, videoBill({ per_second: 100_000 }, task).amount);
  assertEquals(receipt.units.billed_seconds, 10.501);
  assertEquals(receipt.amount, 1_050_100);
});

Deno.test("receiptOf() takes what was charged from the ledger entries", () => {
  const pricing = imageReceipt({ per_image: 40_000 }, {
    size: "1024x1024",
    quality: "auto",
    count: 2,
  });
  const receipt = receiptOf(pricing, {
    entries: [{ id: "le_1", amount: -120_000 }, { id: "le_2", amount: 40_000 }],
    status: "settled",
    held: 120_000,
  });
  assertEquals([receipt.amount, receipt.charged, receipt.refunded], [80_000, 80_000, 40_000]);
  assertEquals(receipt.ledger_entry_ids, ["le_1", "le_2"]);
  const released = receiptOf(pricing, {
    entries: [{ id: "le_1", amount: -1 }, { id: "le_2", amount: 1 }],
    status: "released",
  });
  assertEquals(Object.is(released.charged, 0), true, "0, not -0");
});

Deno.test("failedTaskPricing() keeps what the refund percent does not give back", () => {
  const pricing = videoReceipt({ per_task: 500_001 }, { durationSeconds: 5, referenceSeconds: [] });
  assertEquals(failedTaskPricing(pricing, { held: 500_001, refundPercent: 50 }).amount, 250_001);
  assertEquals(failedTaskPricing(pricing, { held: 500_001, refundPercent: 100 }).amount, 0);
});
