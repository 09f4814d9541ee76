import { assertEquals } from "../../helpers/assert.ts";
import type { UsageRow } from "../../../core/telemetry/usage_rollups.ts";
import { dailySeries, DAY_MS, topBy, totalsSince } from "../../../routes/console/usage_summary.ts";

const NOW = Date.parse("2026-11-24T15:30:00Z");

function row(start: string, fields: Partial<UsageRow>): UsageRow {
  return {
    start,
    requests: 1,
    input_tokens: 10,
    cached_input_tokens: 0,
    output_tokens: 5,
    seconds: 0,
    images: 0,
    cost: 100,
    ...fields,
  };
}

const ROWS = [
  row("2026-11-24T00:00:00.000Z", { model: "a", key_id: "key_1", cost: 300, requests: 3 }),
  row("2026-11-24T00:00:00.000Z", { model: "b", key_id: "key_2", cost: 50 }),
  row("2026-11-20T00:00:00.000Z", { model: "b", key_id: "key_2", cost: 400 }),
  row("2026-10-01T00:00:00.000Z", { model: null, key_id: null, cost: 7 }),
];

Deno.test("totalsSince sums only the rows from the given time on", () => {
  assertEquals(totalsSince(ROWS, Date.parse("2026-11-24T00:00:00Z")), {
    requests: 4,
    input_tokens: 20,
    output_tokens: 10,
    cost: 350,
  });
  assertEquals(totalsSince(ROWS, 0).cost, 757);
});

Deno.test("dailySeries has one entry per day, oldest first, empty days zero, older rows left out", () => {
  const series = dailySeries(ROWS, { now: NOW, days: 7 });
  assertEquals(series.map((day) => day.day), [
    "2026-11-18",
    "2026-11-19",
    "2026-11-20",
    "2026-11-21",
    "2026-11-22",
    "2026-11-23",
    "2026-11-24",
  ]);
  assertEquals(series.map((day) => day.cost), [0, 0, 400, 0, 0, 0, 350]);
  assertEquals(series.reduce((sum, day) => sum + day.requests, 0), 5);
  assertEquals(NOW - Date.parse(series[0].day) < 7 * DAY_MS, true);
});

Deno.test("topBy ranks by spend, then requests, keeps the rows without a name, and cuts at limit", () => {
  assertEquals(topBy(ROWS, { field: "model", limit: 5 }).map((r) => [r.name, r.cost]), [
    ["b", 450],
    ["a", 300],
    [null, 7],
  ]);
  assertEquals(topBy(ROWS, { field: "key_id", limit: 1 }).map((r) => r.name), ["key_2"]);
});
