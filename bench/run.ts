/**
 * `deno task bench`: starts a fixed upstream, a bare forwarder and the gateway as separate
 * processes, seeds the gateway, then measures each target one at a time with bench/load.ts
 * (its own process) and prints a report. Env: BENCH_SECONDS (throughput duration, default 5).
 */

import type { LoadResult } from "./load.ts";
import { type ServerProcess, startServer, waitForOk } from "./processes.ts";
import { type BenchConfig, formatReport, type TargetResult } from "./report.ts";
import { measureStreamCpu } from "./stream_cpu.ts";
import { MESSAGES_GAP_MS } from "./fixed_upstream.ts";
import {
  ADMIN_TOKEN,
  CHAT_PATH,
  CONVERTED_STREAM_BODY,
  FUNDED_BALANCE,
  ledgerCheck,
  MESSAGES_PATH,
  MESSAGES_STREAM_BODY,
  metricsSummary,
  PLAIN_BODY,
  rssMb,
  sanityCheck,
  seed,
  STREAM_BODY,
} from "./gateway_checks.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);
/** Load generators under way, killed if the bench is interrupted. */
const runningLoads = new Set<Deno.ChildProcess>();
const FORWARDER = "bare forwarder";
const GATEWAY = "gateway";
const FUNDED = "gateway, funded key";

function envSeconds(name: string, fallback: number): number {
  const value = Number(Deno.env.get(name) ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
}

function log(message: string): void {
  console.error(`[bench] ${message}`);
}

/** Runs bench/load.ts in its own process against `url`. */
async function load(
  url: string,
  key: string,
  body: string,
  connections: number,
  seconds: number,
  warmup: number,
): Promise<LoadResult> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-q",
      "--allow-net",
      "bench/load.ts",
      `--url=${url}`,
      `--key=${key}`,
      `--body=${body}`,
      `--connections=${connections}`,
      `--seconds=${seconds}`,
      `--warmup=${warmup}`,
    ],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  runningLoads.add(child);
  const output = await child.output().finally(() => runningLoads.delete(child));
  const stdout = new TextDecoder().decode(output.stdout).trim();
  if (!output.success) {
    const stderr = new TextDecoder().decode(output.stderr);
    throw new Error(`load.ts failed (code ${output.code}): ${stderr}${stdout}`);
  }
  return JSON.parse(stdout.split("\n").at(-1)!);
}

function describe(result: LoadResult): string {
  const errors = result.errors ? `, ${result.errors} ERRORS` : "";
  return `${
    result.rps.toFixed(0)
  } req/s, p50 ${result.p50_ms} ms, ttfb p50 ${result.ttfb_p50_ms} ms${errors}`;
}

async function measure(
  servers: { upstream: ServerProcess; forwarder: ServerProcess; gateway: ServerProcess },
  keys: { unlimited: string; funded: string },
  config: BenchConfig,
): Promise<TargetResult[]> {
  const targets = [
    { name: "upstream direct", url: servers.upstream.url + CHAT_PATH, key: keys.unlimited },
    { name: FORWARDER, url: servers.forwarder.url + CHAT_PATH, key: keys.unlimited },
    { name: GATEWAY, url: servers.gateway.url + CHAT_PATH, key: keys.unlimited },
    { name: FUNDED, url: servers.gateway.url + CHAT_PATH, key: keys.funded },
  ];
  const latency: LoadResult[] = [];
  const stream: LoadResult[] = [];
  const throughput: LoadResult[] = [];
  // One-connection runs first, so they do not pay for background work left by the loaded runs.
  for (const target of targets) {
    const result = await load(
      target.url,
      target.key,
      PLAIN_BODY,
      1,
      config.latencySeconds,
      config.warmup,
    );
    log(`${target.name} @1: ${describe(result)}`);
    latency.push(result);
  }
  for (const target of targets) {
    const result = await load(
      target.url,
      target.key,
      STREAM_BODY,
      1,
      config.latencySeconds,
      config.warmup,
    );
    log(`${target.name} stream @1: ${describe(result)}`);
    stream.push(result);
  }
  for (const target of targets) {
    const result = await load(
      target.url,
      target.key,
      PLAIN_BODY,
      config.connections,
      config.seconds,
      config.warmup,
    );
    log(`${target.name} @${config.connections}: ${describe(result)}`);
    throughput.push(result);
  }
  return targets.map((target, i) => ({
    name: target.name,
    latency: latency[i],
    stream: stream[i],
    throughput: throughput[i],
  }));
}

interface TtfbRow {
  name: string;
  result: LoadResult;
}

/** Streams of the messages format: straight to the upstream, passed through, converted. */
async function measureTextStreams(
  servers: { upstream: ServerProcess; forwarder: ServerProcess; gateway: ServerProcess },
  key: string,
  config: BenchConfig,
): Promise<TtfbRow[]> {
  const targets = [
    {
      name: "upstream direct (messages)",
      url: servers.upstream.url + MESSAGES_PATH,
      body: MESSAGES_STREAM_BODY,
    },
    {
      name: `${FORWARDER} (messages)`,
      url: servers.forwarder.url + MESSAGES_PATH,
      body: MESSAGES_STREAM_BODY,
    },
    {
      name: "gateway, messages → anthropic (pass-through)",
      url: servers.gateway.url + MESSAGES_PATH,
      body: MESSAGES_STREAM_BODY,
    },
    {
      name: "gateway, chat → anthropic (converted)",
      url: servers.gateway.url + CHAT_PATH,
      body: CONVERTED_STREAM_BODY,
    },
  ];
  const rows: TtfbRow[] = [];
  for (const target of targets) {
    const result = await load(
      target.url,
      key,
      target.body,
      1,
      config.latencySeconds,
      config.warmup,
    );
    log(`${target.name} @1: ${describe(result)}`);
    rows.push({ name: target.name, result });
  }
  return rows;
}

function formatTextStreams(rows: TtfbRow[]): string {
  const direct = rows[0].result;
  const cell = (value: number | null) => value === null ? "n/a" : `${value} ms`;
  const added = (value: number | null, base: number | null) =>
    value === null || base === null
      ? "n/a"
      : `${value - base >= 0 ? "+" : ""}${(value - base).toFixed(2)} ms`;
  const passThrough = rows.find((row) => row.name.includes("pass-through"))!.result;
  const met = passThrough.relay_p50_ms !== null && passThrough.relay_p50_ms <= 1;
  return [
    `Text streams, 1 connection. The upstream writes its first event (stamped with the time it`,
    `wrote it), then the rest after ${MESSAGES_GAP_MS} ms: a proxy that buffered would add that pause.`,
    `"relay" = from the upstream writing its first byte to the client reading it; "added TTFB" =`,
    `TTFB minus the upstream's own (so it includes the extra hop and the request's handling).`,
    "",
    "| target | relay p50 | relay p99 | TTFB p50 | TTFB p99 | added TTFB p50 | added TTFB p99 | err |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ...rows.map(({ name, result }) =>
      `| ${name} | ${cell(result.relay_p50_ms)} | ${cell(result.relay_p99_ms)} | ${
        cell(result.ttfb_p50_ms)
      } | ${cell(result.ttfb_p99_ms)} | ${added(result.ttfb_p50_ms, direct.ttfb_p50_ms)} | ${
        added(result.ttfb_p99_ms, direct.ttfb_p99_ms)
      } | ${result.errors} |`
    ),
    "",
    `Target: a pass-through stream's first byte within 1 ms of the upstream's (relay p50 <= 1 ms): ${
      met ? "met" : "MISSED"
    }. (The converted stream's first event is rewritten, so it carries no stamp.)`,
  ].join("\n");
}

function formatStreamCpu(): string {
  const rows = measureStreamCpu();
  const worst = Math.max(...rows.map((row) => row.convertedUs / row.passThroughUs));
  return [
    "Stream CPU per upstream event (in-process, 2,000 text deltas, best of 15): converted vs",
    "pass-through of the same upstream stream. Target: converted <= 2x pass-through.",
    "",
    "| upstream → client | converted µs/event | pass-through µs/event | ratio |",
    "| --- | --- | --- | --- |",
    ...rows.map((row) =>
      `| ${row.upstream} → ${row.client} | ${row.convertedUs.toFixed(2)} | ${
        row.passThroughUs.toFixed(2)
      } | ${(row.convertedUs / row.passThroughUs).toFixed(2)} |`
    ),
    "",
    `Worst ratio ${worst.toFixed(2)} (${worst <= 2 ? "meets" : "MISSES"} the 2x target)`,
  ].join("\n");
}

async function main(): Promise<void> {
  const config: BenchConfig = {
    connections: 32,
    seconds: envSeconds("BENCH_SECONDS", 5),
    latencySeconds: 3,
    warmup: 1,
  };
  const tmp = await Deno.makeTempDir({ prefix: "gateway-bench-" });
  const started: ServerProcess[] = [];
  const stopAll = () => Promise.all(started.map((server) => server.stop()));
  const onSignal = async () => {
    for (const child of runningLoads) {
      try {
        child.kill("SIGKILL");
      } catch {
        // already exited
      }
    }
    await stopAll();
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
    Deno.exit(130);
  };
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
  try {
    const serverArgs = ["run", "-q", "--allow-net", "--allow-env"];
    const upstream = await startServer({
      name: "fixed upstream",
      args: [...serverArgs, "bench/fixed_upstream.ts"],
      cwd: ROOT,
    });
    started.push(upstream);
    const forwarder = await startServer({
      name: FORWARDER,
      args: [...serverArgs, "bench/bare_forwarder.ts"],
      cwd: ROOT,
      env: { UPSTREAM_URL: upstream.url },
    });
    started.push(forwarder);
    const gateway = await startServer({
      name: GATEWAY,
      args: ["run", "-q", "--allow-all", "main.ts"],
      cwd: ROOT,
      env: {
        PORT: "0",
        HOST: "127.0.0.1",
        GATEWAY_KV: `${tmp}/bench.kv`,
        GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
        GATEWAY_LOG_REQUESTS: "0",
      },
      readyTimeoutMs: 120_000,
    });
    started.push(gateway);
    await waitForOk(`${gateway.url}/healthz`);
    log(`upstream ${upstream.url}, forwarder ${forwarder.url}, gateway ${gateway.url}`);

    const keys = await seed(gateway.url, upstream.url);
    await sanityCheck(gateway.url, keys.unlimited.key);
    await sanityCheck(gateway.url, keys.funded.key);
    log("sanity check passed; measuring (targets one at a time)");

    const rssBefore = await rssMb(gateway.pid);
    const results = await measure({ upstream, forwarder, gateway }, {
      unlimited: keys.unlimited.key,
      funded: keys.funded.key,
    }, config);
    const textStreams = await measureTextStreams(
      { upstream, forwarder, gateway },
      keys.text.key,
      config,
    );
    const rssAfterLoad = await rssMb(gateway.pid);
    console.log("");
    console.log(formatReport(config, results, FORWARDER, GATEWAY, FUNDED));
    console.log("");
    console.log(formatTextStreams(textStreams));
    console.log("");
    console.log(formatStreamCpu());

    const okRequests = (name: string) => {
      const result = results.find((target) => target.name === name)!;
      return 2 + result.latency.total_ok + result.throughput.total_ok +
        (result.stream?.total_ok ?? 0);
    };
    console.log("");
    console.log(
      `Ledger, key without limit: ${await ledgerCheck(
        gateway.url,
        keys.unlimited.id,
        okRequests(GATEWAY),
      )}`,
    );
    console.log(
      `Ledger, funded key: ${await ledgerCheck(
        gateway.url,
        keys.funded.id,
        okRequests(FUNDED),
        FUNDED_BALANCE,
      )}`,
    );
    console.log(
      `Gateway RSS: ${rssBefore} before load, ${rssAfterLoad} right after the ` +
        `${config.connections}-connection run, ${await rssMb(gateway.pid)} once settled`,
    );
    console.log(["Gateway /metrics:", ...(await metricsSummary(gateway.url))].join("\n  "));
    const noise = gateway.stderr.filter((line) => line.trim());
    const stdoutExtra = gateway.stdout.filter((line) => !line.includes('"listening"'));
    if (noise.length || stdoutExtra.length) {
      console.log(
        ["Gateway output during the run (last lines):", ...stdoutExtra, ...noise].join("\n  "),
      );
    } else {
      console.log("Gateway output during the run: nothing besides the listening line");
    }
  } finally {
    Deno.removeSignalListener("SIGINT", onSignal);
    Deno.removeSignalListener("SIGTERM", onSignal);
    await stopAll();
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) {
  try {
    await main();
  } catch (error) {
    console.error(`[bench] FAILED: ${error instanceof Error ? error.message : String(error)}`);
    Deno.exit(1);
  }
}
