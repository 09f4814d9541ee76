/** Formats the bench's measurements: every figure a ratio or a difference from the same run. */

import { formatSpread, type Spread } from "./spread.ts";

/** How the run was configured, for the report header. */
export interface BenchConfig {
  generator: string;
  connections: number;
  seconds: number;
  latencySeconds: number;
  rounds: number;
  /** Stream counts of the memory figure. */
  streams: number[];
}

/** The tracked figures, each over the alternating rounds. */
export interface TrackedFigures {
  throughputRatio: Spread;
  streamThroughputRatio: Spread;
  forwarderRps: Spread;
  gatewayRps: Spread;
  forwarderStreamRps: Spread;
  gatewayStreamRps: Spread;
  /** CPU per request of each server (every thread), µs, in the runs above. */
  forwarderCpuUs: Spread;
  gatewayCpuUs: Spread;
  forwarderStreamCpuUs: Spread;
  gatewayStreamCpuUs: Spread;
  addedP50Ms: Spread;
  addedP99Ms: Spread;
  /** Time to the first stream byte added over the upstream's own (1 connection). */
  addedTtfbMs: number | null;
  rssOpenStreams: {
    gatewayMb: number | null;
    forwarderMb: number | null;
    /** The bare forwarder copying bodies through a JavaScript stream: the floor for a reader. */
    pumpMb: number | null;
    open: number;
  };
  kvOpsPerRequest: Record<string, number>;
  errors: string[];
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((cell, i) =>
    Math.max(cell.length, ...rows.map((row) => row[i].length))
  );
  const line = (row: string[]) =>
    row.map((cell, i) => i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

function verdict(met: boolean | null): string {
  return met === null ? "" : met ? "  [met]" : "  [MISSED]";
}

const mb = (value: number | null) => value === null ? "n/a" : `${value.toFixed(0)} MB`;

/** The tracked figures against the targets of issue 19. */
export function formatReport(config: BenchConfig, figures: TrackedFigures): string {
  const kvOps = Object.entries(figures.kvOpsPerRequest);
  const totalKv = kvOps.reduce((sum, [, value]) => sum + value, 0);
  return [
    `Load generator: ${config.generator}. ${config.rounds} alternating rounds (forwarder and ` +
    `gateway take turns going first); ${config.connections} connections for ${config.seconds} s, ` +
    `latency at 1 connection for ${config.latencySeconds} s. Figures: median (min to max).`,
    "",
    table(["measure", "forwarder", "gateway (funded key)"], [
      [
        `req/s @${config.connections}`,
        formatSpread(figures.forwarderRps, { digits: 0 }),
        formatSpread(figures.gatewayRps, { digits: 0 }),
      ],
      [
        `stream req/s @${config.connections}`,
        formatSpread(figures.forwarderStreamRps, { digits: 0 }),
        formatSpread(figures.gatewayStreamRps, { digits: 0 }),
      ],
      [
        `CPU per request @${config.connections}`,
        formatSpread(figures.forwarderCpuUs, { digits: 0, unit: " µs" }),
        formatSpread(figures.gatewayCpuUs, { digits: 0, unit: " µs" }),
      ],
      [
        `CPU per stream request @${config.connections}`,
        formatSpread(figures.forwarderStreamCpuUs, { digits: 0, unit: " µs" }),
        formatSpread(figures.gatewayStreamCpuUs, { digits: 0, unit: " µs" }),
      ],
    ]),
    "",
    "CPU per request is every thread of the server's process (user + system, /proc) over the " +
    "run, divided by its requests: what the throughput ratio follows once both servers are " +
    "CPU-bound (the load generator's and the upstream's share of the cores is the same for both).",
    "",
    table(["tracked figure", "value", "target"], [
      [
        `throughput @${config.connections}, gateway / forwarder`,
        formatSpread(figures.throughputRatio),
        `>= 0.5${verdict(figures.throughputRatio.median >= 0.5)}`,
      ],
      [
        `stream throughput @${config.connections}, gateway / forwarder`,
        formatSpread(figures.streamThroughputRatio),
        `>= 0.5${verdict(figures.streamThroughputRatio.median >= 0.5)}`,
      ],
      [
        "added latency p50 @1",
        formatSpread(figures.addedP50Ms, { unit: " ms" }),
        `<= 0.3 ms${verdict(figures.addedP50Ms.median <= 0.3)}`,
      ],
      ["added latency p99 @1", formatSpread(figures.addedP99Ms, { unit: " ms" }), "-"],
      [
        "added time to first stream byte @1",
        figures.addedTtfbMs === null ? "n/a" : `${figures.addedTtfbMs.toFixed(3)} ms`,
        `<= 1 ms${verdict(figures.addedTtfbMs === null ? null : figures.addedTtfbMs <= 1)}`,
      ],
      [
        `RSS with ${figures.rssOpenStreams.open} open streams (gateway)`,
        mb(figures.rssOpenStreams.gatewayMb),
        `<= 150 MB${
          verdict(
            figures.rssOpenStreams.gatewayMb === null
              ? null
              : figures.rssOpenStreams.gatewayMb <= 150,
          )
        }`,
      ],
      [
        `RSS with ${figures.rssOpenStreams.open} open streams (forwarder)`,
        mb(figures.rssOpenStreams.forwarderMb),
        "-",
      ],
      [
        `RSS with ${figures.rssOpenStreams.open} open streams (JS-pump forwarder)`,
        mb(figures.rssOpenStreams.pumpMb),
        "-",
      ],
      [
        "KV operations per request",
        kvOps.length
          ? `${totalKv.toFixed(2)} (${
            kvOps.map(([op, value]) => `${op} ${value.toFixed(2)}`).join(", ")
          })`
          : "n/a",
        "-",
      ],
    ]),
    "",
    figures.errors.length
      ? ["Errors:", ...figures.errors].join("\n  ")
      : "Errors: none (every answer 2xx)",
  ].join("\n");
}
