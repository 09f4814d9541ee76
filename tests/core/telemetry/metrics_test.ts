import { LATENCY_BUCKETS, Metrics } from "../../../core/telemetry/metrics.ts";
import { assertEquals, assertOk } from "../../helpers/assert.ts";

Deno.test("metrics: a latency histogram renders cumulative buckets, +Inf, _sum and _count", () => {
  const metrics = new Metrics();
  for (const seconds of [0.01, 0.07, 0.07, 0.3, 200]) {
    metrics.observe("gateway_upstream_latency_seconds", { channel: "ch_a" }, seconds);
  }
  const lines = metrics.render().split("\n");
  const value = (series: string) =>
    Number(lines.find((line) => line.startsWith(`${series} `))?.split(" ")[1]);
  const bucket = (le: string) =>
    value(`gateway_upstream_latency_seconds_bucket{channel="ch_a",le="${le}"}`);
  assertOk(lines.includes("# TYPE gateway_upstream_latency_seconds histogram"));
  assertEquals([bucket("0.05"), bucket("0.1"), bucket("0.5"), bucket("120")], [1, 3, 4, 4]);
  assertEquals(bucket("+Inf"), 5);
  assertEquals(value(`gateway_upstream_latency_seconds_count{channel="ch_a"}`), 5);
  assertEquals(
    Math.round(value(`gateway_upstream_latency_seconds_sum{channel="ch_a"}`) * 100),
    20045,
  );
  assertEquals(
    lines.filter((line) => line.startsWith("gateway_upstream_latency_seconds_bucket")).length,
    LATENCY_BUCKETS.length + 1,
  );
});

Deno.test("metrics: a gauge is read from its collector at each render", () => {
  const metrics = new Metrics();
  let state = 0;
  metrics.gauge("gateway_channel_breaker_state", "breaker", () => [
    { labels: { channel: "ch_a" }, value: state },
  ]);
  assertOk(metrics.render().includes(`gateway_channel_breaker_state{channel="ch_a"} 0`));
  state = 2;
  const text = metrics.render();
  assertOk(text.includes("# TYPE gateway_channel_breaker_state gauge"));
  assertOk(text.includes(`gateway_channel_breaker_state{channel="ch_a"} 2`));
});

Deno.test("metrics: a histogram read in process has the buckets /metrics renders", () => {
  const metrics = new Metrics();
  for (const seconds of [0.01, 0.07, 0.3, 200]) {
    metrics.observe("gateway_upstream_latency_seconds", { channel: "ch_a" }, seconds);
  }
  metrics.observe("gateway_upstream_latency_seconds", { channel: "ch_b" }, 1);
  const [a, b] = metrics.histogram("gateway_upstream_latency_seconds");
  assertEquals(a.labels, { channel: "ch_a" });
  assertEquals(a.buckets.length, LATENCY_BUCKETS.length + 1);
  assertEquals(a.buckets.slice(0, 4), [
    { le: 0.05, count: 1 },
    { le: 0.1, count: 2 },
    { le: 0.25, count: 2 },
    { le: 0.5, count: 3 },
  ]);
  assertEquals(a.buckets.at(-1), { le: Infinity, count: 4 });
  assertEquals(b.buckets.find((bucket) => bucket.le === 1)?.count, 1);
  assertEquals(metrics.histogram("nothing"), []);
});
