import { assertEquals } from "../../helpers/assert.ts";
import {
  minuteAt,
  secondsUntil,
  spendWindowAt,
  spendWindowsAt,
} from "../../../core/billing/spend_windows.ts";

const at = (iso: string) => Date.parse(iso);

Deno.test("spendWindowAt() day: from 00:00 UTC to the next midnight", () => {
  const window = spendWindowAt("day", at("2026-11-24T23:59:59.999Z"));
  assertEquals(window, {
    period: "day",
    id: "day:2026-11-24",
    startMs: at("2026-11-24T00:00:00Z"),
    endMs: at("2026-11-25T00:00:00Z"),
  });
  assertEquals(spendWindowAt("day", at("2026-11-25T00:00:00Z")).id, "day:2026-11-25");
});

Deno.test("spendWindowAt() week: from Monday 00:00 UTC, whatever the day", () => {
  // 2026-11-23 is a Monday.
  for (const iso of ["2026-11-23T00:00:00Z", "2026-11-26T12:00:00Z", "2026-11-29T23:59:59Z"]) {
    const window = spendWindowAt("week", at(iso));
    assertEquals(window.id, "week:2026-11-23", iso);
    assertEquals(window.startMs, at("2026-11-23T00:00:00Z"));
    assertEquals(window.endMs, at("2026-11-30T00:00:00Z"));
  }
  assertEquals(spendWindowAt("week", at("2026-11-30T00:00:00Z")).id, "week:2026-11-30");
  // A week across a month and a year end.
  assertEquals(spendWindowAt("week", at("2027-01-01T08:00:00Z")).id, "week:2026-12-28");
});

Deno.test("spendWindowAt() month: from the 1st to the next 1st, leap years included", () => {
  assertEquals(spendWindowAt("month", at("2028-02-29T23:00:00Z")), {
    period: "month",
    id: "month:2028-02",
    startMs: at("2028-02-01T00:00:00Z"),
    endMs: at("2028-03-01T00:00:00Z"),
  });
  const december = spendWindowAt("month", at("2026-12-31T23:59:59Z"));
  assertEquals([december.id, december.endMs], ["month:2026-12", at("2027-01-01T00:00:00Z")]);
});

Deno.test("spendWindowsAt() gives the day, week and month around one time", () => {
  const ids = spendWindowsAt(at("2026-11-24T10:00:00Z")).map((window) => window.id);
  assertEquals(ids, ["day:2026-11-24", "week:2026-11-23", "month:2026-11"]);
});

Deno.test("minuteAt() and secondsUntil(): whole minutes, and at least one second", () => {
  assertEquals(minuteAt(at("1970-01-01T00:02:59.999Z")), 2);
  assertEquals(secondsUntil(at("2026-11-25T00:00:00Z"), at("2026-11-24T23:00:00.001Z")), 3600);
  assertEquals(secondsUntil(1000, 1000), 1);
  assertEquals(secondsUntil(1000, 5000), 1);
});
