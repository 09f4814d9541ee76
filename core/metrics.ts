/** Counters served at /metrics in the Prometheus text format. */

function labelText(labels: Record<string, string>): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${v.replace(/["\\\n]/g, "_")}"`);
  return parts.length ? `{${parts.join(",")}}` : "";
}

/** A small registry of labelled counters. */
export class Metrics {
  #counters = new Map<string, Map<string, number>>();
  #help = new Map<string, string>();

  constructor() {
    this.#help.set("gateway_requests_total", "Client requests by interface, route and status");
    this.#help.set("gateway_request_seconds_total", "Sum of client request latencies");
    this.#help.set("gateway_upstream_attempts_total", "Upstream attempts by channel and outcome");
    this.#help.set("gateway_cost_units_total", "Units charged");
  }

  /** Adds `value` to counter `name` with `labels`. */
  add(name: string, labels: Record<string, string>, value = 1): void {
    let series = this.#counters.get(name);
    if (!series) this.#counters.set(name, series = new Map());
    const key = labelText(labels);
    series.set(key, (series.get(key) ?? 0) + value);
  }

  /** The Prometheus exposition text. */
  render(): string {
    const lines: string[] = [];
    for (const [name, series] of this.#counters) {
      lines.push(`# HELP ${name} ${this.#help.get(name) ?? name}`, `# TYPE ${name} counter`);
      for (const [labels, value] of series) lines.push(`${name}${labels} ${value}`);
    }
    return lines.join("\n") + "\n";
  }
}
