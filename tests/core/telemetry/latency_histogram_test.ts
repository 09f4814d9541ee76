import { assertEquals, assertOk } from "../../helpers/assert.ts";
import {
  addHistogram,
  latencyBin,
  type LatencyHistogram,
  medianLatency,
} from "../../../core/telemetry/latency_histogram.ts";

function histogramOf(latencies: number[]): LatencyHistogram {
  const histogram: LatencyHistogram = {};
  for (const ms of latencies) {
    const bin = latencyBin(ms);
    histogram[bin] = (histogram[bin] ?? 0) + 1;
  }
  return histogram;
}

Deno.test("medianLatency() is within 10% of the true median", () => {
  for (const latencies of [[5], [12, 40, 300], [1, 2, 3, 4, 250, 251, 252], [0.2, 0.4, 0.9]]) {
    const sorted = [...latencies].sort((a, b) => a - b);
    const truth = Math.max(1, sorted[Math.floor((sorted.length - 1) / 2)]);
    const median = medianLatency(histogramOf(latencies))!;
    assertOk(Math.abs(median - truth) <= truth * 0.1 + 0.5, `${latencies}: ${median} vs ${truth}`);
  }
});

Deno.test("medianLatency() of an empty histogram is null; addHistogram() adds counts", () => {
  assertEquals(medianLatency({}), null);
  const into = histogramOf([10, 10]);
  addHistogram(into, histogramOf([10, 1000]));
  assertEquals(into[latencyBin(10)], 3);
  assertEquals(into[latencyBin(1000)], 1);
});
