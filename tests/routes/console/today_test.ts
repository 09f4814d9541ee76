import { assertEquals } from "../../helpers/assert.ts";
import { percentilesOf, todayRows } from "../../../routes/console/today.ts";
import type { UsageRow } from "../../../core/telemetry/usage_rollups.ts";
import type { RequestLogEntry } from "../../../core/telemetry/request_log_entry.ts";

function usage(channel_id: string | null, requests: number, cost: number): UsageRow {
  return {
    start: "2026-11-27T00:00:00.000Z",
    channel_id,
    model: "m",
    requests,
    input_tokens: 0,
    cached_input_tokens: 0,
    output_tokens: 0,
    seconds: 0,
    images: 0,
    cost,
  };
}

const error = (channel_id: string | null, status: number) =>
  ({ channel_id, model: "m", status }) as RequestLogEntry;

Deno.test("today rows: requests and spend by channel with 5xx and 4xx counted in, busiest first", () => {
  const rows = todayRows({
    usage: [usage("ch_a", 2, 10), usage("ch_b", 5, 3), usage("ch_a", 1, 4), usage(null, 1, 0)],
    errors: [error("ch_a", 502), error("ch_a", 500), error(null, 404), error("ch_c", 503)],
    field: "channel_id",
  });
  assertEquals(rows, [
    { name: "ch_b", requests: 5, cost: 3, client_errors: 0, server_errors: 0 },
    { name: "ch_a", requests: 3, cost: 14, client_errors: 0, server_errors: 2 },
    { name: null, requests: 1, cost: 0, client_errors: 1, server_errors: 0 },
    { name: "ch_c", requests: 0, cost: 0, client_errors: 0, server_errors: 1 },
  ]);
  assertEquals(todayRows({ usage: [], errors: [], field: "model" }), []);
});

Deno.test("today percentiles: p50, p90 and p99 in whole ms from buckets in seconds", () => {
  const buckets = [
    { le: 0.1, count: 50 },
    { le: 0.5, count: 90 },
    { le: 1, count: 100 },
    { le: Infinity, count: 100 },
  ];
  assertEquals(percentilesOf(buckets), { p50: 100, p90: 500, p99: 950, observed: 100 });
  assertEquals(percentilesOf([]), { p50: null, p90: null, p99: null, observed: 0 });
});
