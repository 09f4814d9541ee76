/** The webhook retry schedule. */

import { assertEquals } from "../../helpers/assert.ts";
import { retryDelayMs } from "../../../core/webhooks/delivery_worker.ts";

Deno.test("retryDelayMs() grows five times per attempt from the base, capped at 10 hours", () => {
  const baseMs = 5_000;
  assertEquals(
    [1, 2, 3, 4, 5, 6, 7].map((attempts) => retryDelayMs(attempts, { baseMs })),
    [5_000, 25_000, 125_000, 625_000, 3_125_000, 15_625_000, 36_000_000],
  );
  assertEquals(retryDelayMs(30, { baseMs }), 36_000_000);
  assertEquals(retryDelayMs(1, { baseMs: 100 }), 100);
});
