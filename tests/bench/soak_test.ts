import { assertEquals, assertOk, assertThrows } from "../helpers/assert.ts";
import { type SoakSample, summarizeSoak } from "../../bench/soak.ts";

const samples = (rss: (i: number) => number, heap: ((i: number) => number) | null) =>
  Array.from({ length: 12 }, (_, i): SoakSample => ({
    at: (i + 1) * 10,
    rssMb: rss(i),
    heapMb: heap ? heap(i) : null,
  }));

Deno.test("summarizeSoak() calls memory that grows only while warming up flat", () => {
  const summary = summarizeSoak(samples((i) => i < 3 ? 100 + i * 20 : 160, (_i) => 30));
  assertOk(summary.flat);
  assertEquals(summary.rssEarly.median, 160);
  assertEquals(summary.rssLate.median, 160);
  assertEquals(summary.rssSlopeMbPerMin, 0);
  assertEquals(summary.heapSlopeMbPerMin, 0);
  assertEquals(summary.seconds, 120);
});

Deno.test("summarizeSoak() flags a heap that keeps growing, with its slope per minute", () => {
  const summary = summarizeSoak(samples(() => 200, (i) => 30 + i));
  assertOk(!summary.flat);
  // 1 MB every 10 s.
  assertEquals(Math.round(summary.heapSlopeMbPerMin!), 6);
});

Deno.test("summarizeSoak() works from RSS alone and needs at least 8 samples", () => {
  const summary = summarizeSoak(samples(() => 150, null));
  assertEquals(summary.heapEarly, null);
  assertOk(summary.flat);
  assertThrows(() => summarizeSoak(samples(() => 1, null).slice(0, 7)));
});
