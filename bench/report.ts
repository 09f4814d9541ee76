/** Formats bench measurements as plain-text tables and the ratios the project tracks. */

import type { LoadResult } from "./load.ts";

/** Everything measured for one target. */
export interface TargetResult {
  name: string;
  throughput: LoadResult;
  latency: LoadResult;
  stream?: LoadResult;
}

/** How the run was configured, for the report header. */
export interface BenchConfig {
  connections: number;
  seconds: number;
  latencySeconds: number;
  warmup: number;
}

function ms(value: number | null): string {
  return value === null ? "n/a" : value.toFixed(3);
}

function signedMs(value: number | null): string {
  if (value === null) return "n/a";
  return `${value >= 0 ? "+" : ""}${value.toFixed(3)} ms`;
}

function difference(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : a - b;
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

function errorNotes(results: TargetResult[]): string[] {
  const notes: string[] = [];
  for (const target of results) {
    const runs: [string, LoadResult | undefined][] = [
      ["throughput", target.throughput],
      ["latency", target.latency],
      ["stream", target.stream],
    ];
    for (const [label, run] of runs) {
      if (!run || (run.errors === 0 && run.warmup_errors === 0)) continue;
      notes.push(
        `${target.name} ${label}: ${run.errors} errors (+${run.warmup_errors} in warm-up), ` +
          `statuses ${JSON.stringify(run.statuses)}, first: ${run.error_sample}`,
      );
    }
  }
  return notes;
}

/** The full report: load tables, streaming table, tracked ratios, errors. */
export function formatReport(
  config: BenchConfig,
  results: TargetResult[],
  forwarderName: string,
  gatewayName: string,
  fundedName: string,
): string {
  const forwarder = results.find((target) => target.name === forwarderName)!;
  const gateway = results.find((target) => target.name === gatewayName)!;
  const funded = results.find((target) => target.name === fundedName)!;
  const out: string[] = [];

  out.push(
    `Non-streaming: ${config.connections} connections for ${config.seconds} s; ` +
      `latency at 1 connection for ${config.latencySeconds} s (${config.warmup} s warm-up each)`,
    "",
    table(
      ["target", "req/s @32", "err", "p50 @32 ms", "p99 @32 ms", "p50 @1 ms", "p99 @1 ms", "err"],
      results.map((target) => [
        target.name,
        target.throughput.rps.toFixed(0),
        String(target.throughput.errors),
        ms(target.throughput.p50_ms),
        ms(target.throughput.p99_ms),
        ms(target.latency.p50_ms),
        ms(target.latency.p99_ms),
        String(target.latency.errors),
      ]),
    ),
    "",
    `Streaming ("stream": true): 1 connection for ${config.latencySeconds} s, ` +
      `TTFB = first chunk of the body`,
    "",
    table(
      ["target", "TTFB p50 ms", "TTFB p99 ms", "full p50 ms", "full p99 ms", "req/s", "err"],
      results.filter((target) => target.stream).map((target) => [
        target.name,
        ms(target.stream!.ttfb_p50_ms),
        ms(target.stream!.ttfb_p99_ms),
        ms(target.stream!.p50_ms),
        ms(target.stream!.p99_ms),
        target.stream!.rps.toFixed(0),
        String(target.stream!.errors),
      ]),
    ),
    "",
  );

  const ratio = forwarder.throughput.rps > 0
    ? gateway.throughput.rps / forwarder.throughput.rps
    : null;
  const addedP50 = difference(gateway.latency.p50_ms, forwarder.latency.p50_ms);
  const addedP99 = difference(gateway.latency.p99_ms, forwarder.latency.p99_ms);
  const ttfbP50 = difference(
    gateway.stream?.ttfb_p50_ms ?? null,
    forwarder.stream?.ttfb_p50_ms ?? null,
  );
  const ttfbP99 = difference(
    gateway.stream?.ttfb_p99_ms ?? null,
    forwarder.stream?.ttfb_p99_ms ?? null,
  );
  out.push(
    "Tracked ratios (gateway vs bare forwarder)",
    table(["measure", "value", "target"], [
      [
        "throughput @32, gateway / forwarder",
        ratio === null ? "n/a" : ratio.toFixed(3),
        `>= 0.35${verdict(ratio === null ? null : ratio >= 0.35)}`,
      ],
      [
        "added latency p50 @1",
        signedMs(addedP50),
        `<= 0.5 ms${verdict(addedP50 === null ? null : addedP50 <= 0.5)}`,
      ],
      ["added latency p99 @1", signedMs(addedP99), "-"],
      ["added streaming TTFB p50 @1", signedMs(ttfbP50), "-"],
      ["added streaming TTFB p99 @1", signedMs(ttfbP99), "-"],
      [
        "funded key: throughput @32 / forwarder",
        forwarder.throughput.rps > 0
          ? (funded.throughput.rps / forwarder.throughput.rps).toFixed(3)
          : "n/a",
        "-",
      ],
      [
        "funded key: added latency p50 @1",
        signedMs(difference(funded.latency.p50_ms, forwarder.latency.p50_ms)),
        "-",
      ],
    ]),
    "",
    `"${gatewayName}" uses a key without limit (one charge entry per request, after the answer);`,
    `"${fundedName}" uses a key with a balance: its hold commits (an fsync'd KV write) while the`,
    "upstream call runs and must be confirmed before the answer, so it adds latency only when the",
    "upstream answers faster than a KV commit, as the fixed upstream here does.",
  );

  const notes = errorNotes(results);
  out.push("", notes.length ? ["Errors:", ...notes].join("\n") : "Errors: none (every answer 2xx)");
  return out.join("\n");
}
