import { assertEquals, assertOk, assertThrows } from "../../helpers/assert.ts";
import { addBuckets, histogramQuantile } from "../../../core/telemetry/histogram_quantile.ts";

function assertNear(actual: number | null, expected: number) {
  assertOk(actual !== null && Math.abs(actual - expected) < 1e-9, `${actual} ≠ ${expected}`);
}

const buckets = [
  { le: 0.1, count: 10 },
  { le: 0.5, count: 30 },
  { le: 1, count: 40 },
  { le: Infinity, count: 40 },
];

Deno.test("histogram quantile: interpolates linearly within the bucket the rank falls in", () => {
  // Rank 20 of 40: 10 below 0.1, the bucket (0.1, 0.5] holds 20 → halfway through it.
  assertNear(histogramQuantile(0.5, buckets), 0.3);
  // Rank 36 of 40: 30 below 0.5, 10 in (0.5, 1] → 6/10 of the way.
  assertNear(histogramQuantile(0.9, buckets), 0.8);
  assertNear(histogramQuantile(0.99, buckets), 0.5 + 0.5 * 9.6 / 10);
  // The first bucket starts at 0.
  assertNear(histogramQuantile(0.25, buckets), 0.1);
  assertNear(histogramQuantile(0.05, buckets), 0.02);
  assertEquals(histogramQuantile(0, buckets), 0);
  assertEquals(histogramQuantile(1, buckets), 1);
});

Deno.test("histogram quantile: empty buckets are skipped; +Inf answers the largest bound", () => {
  const gaps = [
    { le: 0.1, count: 0 },
    { le: 0.5, count: 0 },
    { le: 1, count: 4 },
    { le: 2, count: 4 },
    { le: Infinity, count: 8 },
  ];
  assertNear(histogramQuantile(0.25, gaps), 0.75);
  assertEquals(histogramQuantile(0.5, gaps), 1, "the rank's bucket ends at 1");
  assertEquals(histogramQuantile(0.9, gaps), 2, "in +Inf: the largest finite bound");
});

Deno.test("histogram quantile: nothing observed is null; a quantile outside 0..1 is refused", () => {
  assertEquals(histogramQuantile(0.5, []), null);
  assertEquals(histogramQuantile(0.5, [{ le: 1, count: 0 }, { le: Infinity, count: 0 }]), null);
  assertThrows(() => histogramQuantile(1.5, buckets));
  assertThrows(() => histogramQuantile(Number.NaN, buckets));
});

Deno.test("histogram quantile: series with the same bounds add up", () => {
  const other = buckets.map((bucket) => ({ ...bucket, count: bucket.count * 2 }));
  assertEquals(addBuckets([buckets, other]).map((bucket) => bucket.count), [30, 90, 120, 120]);
  assertEquals(addBuckets([]), []);
  assertThrows(() => addBuckets([buckets, [{ le: 7, count: 1 }]]));
});
