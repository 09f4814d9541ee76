import { assertEquals } from "../helpers/assert.ts";
import { scalingRow } from "../../bench/scaling.ts";
import { storedCostFigures } from "../../bench/stored_cost.ts";

const run = (rps: number, p50: number | null, errors = 0) => ({
  rps,
  requests: rps * 5,
  p50_ms: p50,
  p99_ms: null,
  errors,
});

Deno.test("scalingRow() gives each server's req/s, the ratio and the added p50 per round", () => {
  const row = scalingRow(32, [
    { forwarder: run(10_000, 2), gateway: run(5_000, 3) },
    { forwarder: run(8_000, 2.5), gateway: run(6_000, 3, 1) },
    { forwarder: run(9_000, 2), gateway: run(3_600, 4) },
  ]);
  assertEquals(row.connections, 32);
  assertEquals(row.forwarderRps.median, 9_000);
  assertEquals(row.ratio.values, [0.5, 0.75, 0.4]);
  assertEquals(row.ratio.median, 0.5);
  assertEquals(row.addedP50Ms.values, [1, 0.5, 2]);
  assertEquals(row.errors, 1);
});

Deno.test("storedCostFigures() compares the stored-data gateway with the empty one per round", () => {
  const figures = storedCostFigures([
    {
      empty: { loaded: run(4_000, null), one: run(500, 1.5), cpuUs: 200 },
      stored: { loaded: run(3_800, null), one: run(480, 1.6), cpuUs: 210 },
    },
    {
      empty: { loaded: run(4_000, null), one: run(500, 1.5), cpuUs: 200 },
      stored: { loaded: run(4_200, null, 2), one: run(520, 1.4), cpuUs: 190 },
    },
  ]);
  assertEquals(figures.ratio.values, [0.95, 1.05]);
  assertEquals(figures.cpuRatio.values, [1.05, 0.95]);
  assertEquals(figures.addedP50Ms.values.map((value) => Math.round(value * 10) / 10), [0.1, -0.1]);
  assertEquals(figures.errors, 2);
});
