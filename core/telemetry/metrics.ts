/** Counters served at /metrics in the Prometheus text format. */

function labelText(labels: Record<string, string>): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${v.replace(/["\\\n]/g, "_")}"`);
  return parts.length ? `{${parts.join(",")}}` : "";
}

interface Series {
  labels: string;
  value: number;
}

/** A small registry of labelled counters. */
export class Metrics {
  /** Per counter, series keyed by their label values joined (the label text is built once). */
  #counters = new Map<string, Map<string, Series>>();
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
    return lines.join("\n") + "\n";
  }
}
