import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { spendCapRefusal, tpmRefusal } from "../../../core/billing/cap_refusals.ts";
import { spendWindowsAt } from "../../../core/billing/spend_windows.ts";

const now = Date.parse("2026-11-24T23:00:00Z");
const windows = (spent: number[]) =>
  spendWindowsAt(now).map((window, index) => ({ window, spent: spent[index] }));

Deno.test("spendCapRefusal() lets a request that fits every capped window pass", () => {
  const refusal = spendCapRefusal(windows([4_000, 9_000, 9_000]), {
    limits: { day: 5_000 },
    amount: 1_000,
    nowMs: now,
  });
  assertEquals(refusal, null);
});

Deno.test("spendCapRefusal() names the daily limit and waits until midnight UTC", () => {
  const refusal = spendCapRefusal(windows([4_500, 0, 0]), {
    limits: { day: 5_000 },
    amount: 501,
    nowMs: now,
  });
  assertOk(refusal);
  assertEquals([refusal.status, refusal.code], [402, "spend_limit_exceeded"]);
  assertOk(refusal.message.startsWith("Daily spend limit of 5000 units reached"), refusal.message);
  assertEquals(refusal.headers["retry-after"], "3600");
});

Deno.test("spendCapRefusal() over two windows waits for the later reset", () => {
  const refusal = spendCapRefusal(windows([100, 100, 100]), {
    limits: { day: 150, month: 150 },
    amount: 60,
    nowMs: now,
  });
  assertOk(refusal);
  assertEquals(refusal.headers["retry-after"], String(6 * 86_400 + 3600));
});

Deno.test("tpmRefusal() counts the minute and waits for the next one", () => {
  const nowMs = Date.parse("2026-11-24T23:00:45Z");
  assertEquals(tpmRefusal(900, { tpm: 1_000, tokens: 100, nowMs }), null);
  const refusal = tpmRefusal(901, { tpm: 1_000, tokens: 100, nowMs });
  assertOk(refusal);
  assertEquals([refusal.status, refusal.code], [429, "tpm_limit_exceeded"]);
  assertOk(refusal.message.includes("limit of 1000"), refusal.message);
  assertEquals(refusal.headers["retry-after"], "15");
});
