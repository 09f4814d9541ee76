/**
 * Counters, histograms and gauges served at /metrics in the Prometheus text format. A histogram
 * has fixed buckets (`_bucket{le}`, `_sum`, `_count`), so quantiles (p50/p95/p99) are derivable
 * with `histogram_quantile`; a gauge is read from its collector when /metrics is rendered.
 */

import type { Bucket } from "./histogram_quantile.ts";

function labelText(labels: Record<string, string>): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${v.replace(/["\\\n]/g, "_")}"`);
  return parts.length ? `{${parts.join(",")}}` : "";
}

interface Series {
  labels: string;
  value: number;
}

/** Upper bounds (seconds) of the upstream latency histogram's buckets. */
export const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

interface HistogramSeries {
  labels: Record<string, string>;
  counts: number[];
  sum: number;
  count: number;
}

type GaugeCollector = () => Array<{ labels: Record<string, string>; value: number }>;

/** A small registry of labelled counters, histograms and gauges. */
export class Metrics {
  /** Per counter, series keyed by their label values joined (the label text is built once). */
  #counters = new Map<string, Map<string, Series>>();
  #histograms = new Map<string, Map<string, HistogramSeries>>();
  #gauges = new Map<string, GaugeCollector>();
  #help = new Map<string, string>();

  constructor() {
    this.#help.set("gateway_requests_total", "Client requests by interface, route and status");
    this.#help.set("gateway_request_seconds_total", "Sum of client request latencies");
    this.#help.set("gateway_upstream_attempts_total", "Upstream attempts by channel and outcome");
    this.#help.set("gateway_cost_units_total", "Units charged");
    this.#help.set(
      "gateway_request_log_dropped_total",
      "Request log entries not written (unauthenticated noise over the rate, or a failed write)",
    );
    this.#help.set(
      "gateway_upstream_skips_total",
      "Channels skipped by routing at no cost, by channel and reason (breaker_open, retry_after)",
    );
    this.#help.set(
      "gateway_upstream_latency_seconds",
      "Upstream attempt latency by channel (to the first byte of a stream, or the whole answer)",
    );
  }

  /** Counts `value` in histogram `name` with `labels` (buckets LATENCY_BUCKETS). */
  observe(name: string, labels: Record<string, string>, value: number): void {
    let histogram = this.#histograms.get(name);
    if (!histogram) this.#histograms.set(name, histogram = new Map());
    let key = "";
    for (const label in labels) key += labels[label] + "\u0001";
    let series = histogram.get(key);
    if (!series) {
      series = { labels, counts: LATENCY_BUCKETS.map(() => 0), sum: 0, count: 0 };
      histogram.set(key, series);
    }
    series.sum += value;
    series.count++;
    for (let index = 0; index < LATENCY_BUCKETS.length; index++) {
      if (value <= LATENCY_BUCKETS[index]) {
        series.counts[index]++;
        break;
      }
    }
  }

  /**
   * Histogram `name` as /metrics renders it, per series: its labels and cumulative buckets (the
   * +Inf one last), read in process rather than by parsing the text.
   */
  histogram(name: string): Array<{ labels: Record<string, string>; buckets: Bucket[] }> {
    return [...(this.#histograms.get(name)?.values() ?? [])].map(({ labels, counts, count }) => {
      let cumulative = 0;
      const buckets = LATENCY_BUCKETS.map((le, index) => ({
        le,
        count: cumulative += counts[index],
      }));
      return { labels: { ...labels }, buckets: [...buckets, { le: Infinity, count }] };
    });
  }

  /** Registers gauge `name`, read from `collect` at each render. */
  gauge(name: string, help: string, collect: GaugeCollector): void {
    this.#help.set(name, help);
    this.#gauges.set(name, collect);
  }

  /** Adds `value` to counter `name` with `labels`. */
  add(name: string, labels: Record<string, string>, value = 1): void {
    let counter = this.#counters.get(name);
    if (!counter) this.#counters.set(name, counter = new Map());
    let key = "";
    for (const label in labels) key += labels[label] + "\u0001";
    const series = counter.get(key);
    if (series) series.value += value;
    else counter.set(key, { labels: labelText(labels), value });
  }

  /** The Prometheus exposition text. */
  render(): string {
    const lines: string[] = [];
    for (const [name, counter] of this.#counters) {
      lines.push(`# HELP ${name} ${this.#help.get(name) ?? name}`, `# TYPE ${name} counter`);
      for (const { labels, value } of counter.values()) lines.push(`${name}${labels} ${value}`);
    }
    for (const [name, histogram] of this.#histograms) {
      lines.push(`# HELP ${name} ${this.#help.get(name) ?? name}`, `# TYPE ${name} histogram`);
      for (const { labels, counts, sum, count } of histogram.values()) {
        let cumulative = 0;
        LATENCY_BUCKETS.forEach((bound, index) => {
          cumulative += counts[index];
          lines.push(`${name}_bucket${labelText({ ...labels, le: String(bound) })} ${cumulative}`);
        });
        lines.push(`${name}_bucket${labelText({ ...labels, le: "+Inf" })} ${count}`);
        lines.push(
          `${name}_sum${labelText(labels)} ${sum}`,
          `${name}_count${labelText(labels)} ${count}`,
        );
      }
    }
    for (const [name, collect] of this.#gauges) {
      lines.push(`# HELP ${name} ${this.#help.get(name) ?? name}`, `# TYPE ${name} gauge`);
      for (const { labels, value } of collect()) lines.push(`${name}${labelText(labels)} ${value}`);
    }
    return lines.join("\n") + "\n";
  }
}
