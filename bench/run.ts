/**
 * `deno task bench`: starts a fixed upstream, a bare forwarder and the gateway as separate
 * processes, seeds the gateway, then measures the forwarder and the gateway in alternating
 * rounds with wrk (or, without wrk, bench/load.ts after proving it is not the bottleneck) and
 * prints ratios and differences from the same run. Env: BENCH_SECONDS (per run, default 5),
 * BENCH_ROUNDS (default 3), BENCH_STREAMS (stream counts for the memory figure, default 1000;
 * 100,1000,5000 with BENCH_ONLY=streams), BENCH_LOAD=deno (use the Deno generator even when wrk
 * is installed), BENCH_SOAK_SECONDS (a memory soak after the full run; default off),
 * BENCH_GATEWAY_V8_FLAGS (V8 flags for the gateway process only), BENCH_KV (the measured
 * gateway's GATEWAY_KV instead of a fresh KV file, e.g. a postgres:// URL of an empty database,
 * with GATEWAY_SECRET_KEY in the environment). BENCH_ONLY runs one part
 * alone: `streams` (RSS with streams open), `scaling` (req/s at 1, 8, 32, 128 connections),
 * `soak` (BENCH_SOAK_SECONDS, default 600, with the heap read through the inspector), `stored`
 * (a gateway on a KV file with BENCH_STORED_KEYS 10,000 keys, BENCH_STORED_RECORDS 1,000,000
 * request-log records, BENCH_STORED_TASKS 1,000 tasks and BENCH_STORED_CHANNELS 20 channels
 * against one on an empty file; BENCH_STORED_KV=path keeps that file for the next run),
 * `dead_channel` (one dead channel of two: throughput and p50 against the healthy-only run, with
 * the breakers on and off; bench/dead_channel.ts), `embeddings` (POST /v1/embeddings beside
 * non-stream chat: ratio to the forwarder at 32 connections, added p50; bench/embeddings.ts),
 * `fairness` (one hot account on two gateways sharing a KV Connect store against one gateway
 * alone: each instance's successes and p99, for a leased and a capped key; bench/fairness.ts).
 */

import type { LoadResult } from "./load.ts";
import { type ServerProcess, startServer, waitForOk } from "./processes.ts";
import { type BenchConfig, formatReport, type TrackedFigures } from "./report.ts";
import { spreadOf } from "./spread.ts";
import {
  chooseGenerator,
  type Generator,
  load,
  type RunFigures,
  runningLoads,
} from "./generator.ts";
import { measureStreamCpu } from "./stream_cpu.ts";
import {
  formatStreamMemory,
  measureStreamMemory,
  parseCounts,
  type StreamServers,
} from "./stream_memory.ts";
import { formatScaling, measureScaling, SCALING_CONNECTIONS } from "./scaling.ts";
import { formatSoak, HeapReader, runSoak, summarizeSoak } from "./soak.ts";
import { seedStoredData, type StoredCounts } from "./stored_data.ts";
import { formatFairness, measureFairness } from "./fairness.ts";

/** Connections per instance in the two-instance fairness figure (one alone gets both halves). */
const FAIRNESS_CONNECTIONS = 16;
import { formatStoredCost, measureStoredCost } from "./stored_cost.ts";
import { processCpuMs } from "./thread_cpu.ts";
import { formatDeadChannel, measureDeadChannel } from "./dead_channel.ts";
import { MESSAGES_GAP_MS } from "./fixed_upstream.ts";
import { formatEmbeddingRows, measureEmbeddingRows, seedEmbeddings } from "./embeddings.ts";
import {
  ADMIN_TOKEN,
  CHAT_PATH,
  CONVERTED_STREAM_BODY,
  FUNDED_BALANCE,
  ledgerCheck,
  MESSAGES_PATH,
  MESSAGES_STREAM_BODY,
  metricValues,
  PLAIN_BODY,
  rssNumberMb,
  sanityCheck,
  seed,
  STREAM_BODY,
} from "./gateway_checks.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);
const FORWARDER = "bare forwarder";
const GATEWAY = "gateway";

function envSeconds(name: string, fallback: number): number {
  const value = Number(Deno.env.get(name) ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
}

/** BENCH_GATEWAY_V8_FLAGS: V8 flags for the gateway process only (to compare heap settings). */
function gatewayV8Flags(): string[] {
  const flags = Deno.env.get("BENCH_GATEWAY_V8_FLAGS");
  return flags ? [`--v8-flags=${flags}`] : [];
}

function log(message: string): void {
  console.error(`[bench] ${message}`);
}

function describe(result: LoadResult): string {
  const errors = result.errors ? `, ${result.errors} ERRORS` : "";
  return `${
    result.rps.toFixed(0)
  } req/s, p50 ${result.p50_ms} ms, ttfb p50 ${result.ttfb_p50_ms} ms${errors}`;
}

/**
 * The Deno generator must outpace the forwarder at least 3x (measured against the raw upstream)
 * or its figures describe the generator; the verdict is printed.
 */
async function generatorCeiling(
  generator: Generator,
  targets: { upstream: string; forwarder: string },
  options: { key: string; connections: number; seconds: number },
): Promise<string> {
  const upstream = await generator.run(
    { url: targets.upstream, key: options.key, body: PLAIN_BODY },
    options,
  );
  const forwarder = await generator.run(
    { url: targets.forwarder, key: options.key, body: PLAIN_BODY },
    options,
  );
  const factor = upstream.rps / forwarder.rps;
  return `Generator ceiling: ${upstream.rps.toFixed(0)} req/s against the raw upstream = ` +
    `${factor.toFixed(2)}x the forwarder's ${forwarder.rps.toFixed(0)} req/s; ` +
    (factor >= 3
      ? "at least 3x, so it is not the bottleneck."
      : "LESS THAN 3x: the ratios below understate the gateway's cost; install wrk " +
        "(apt-get install wrk).");
}

/** A load run and the server's CPU per request during it (every thread, µs). */
type Measured = RunFigures & { cpuUs: number };

interface RoundFigures {
  forwarder: Measured;
  gateway: Measured;
  forwarderStream: Measured;
  gatewayStream: Measured;
  forwarderAtOne: Measured;
  gatewayAtOne: Measured;
}

/** One round: each measure on both servers, the first server alternating by round. */
async function measureRound(
  generator: Generator,
  round: number,
  targets: {
    forwarder: { url: string; pid: number };
    gateway: { url: string; pid: number };
    key: string;
  },
  config: BenchConfig,
): Promise<RoundFigures> {
  const both = async (body: string, connections: number, seconds: number) => {
    const run = async ({ url, pid }: { url: string; pid: number }): Promise<Measured> => {
      const cpuBefore = processCpuMs(pid);
      const figures = await generator.run({ url, key: targets.key, body }, {
        connections,
        seconds,
      });
      return { ...figures, cpuUs: ((processCpuMs(pid) - cpuBefore) * 1000) / figures.requests };
    };
    if (round % 2 === 0) {
      const forwarder = await run(targets.forwarder);
      return { forwarder, gateway: await run(targets.gateway) };
    }
    const gateway = await run(targets.gateway);
    return { forwarder: await run(targets.forwarder), gateway };
  };
  const plain = await both(PLAIN_BODY, config.connections, config.seconds);
  const stream = await both(STREAM_BODY, config.connections, config.seconds);
  const atOne = await both(PLAIN_BODY, 1, config.latencySeconds);
  const figures = {
    forwarder: plain.forwarder,
    gateway: plain.gateway,
    forwarderStream: stream.forwarder,
    gatewayStream: stream.gateway,
    forwarderAtOne: atOne.forwarder,
    gatewayAtOne: atOne.gateway,
  };
  log(
    `round ${round + 1}: @${config.connections} ${plain.forwarder.rps.toFixed(0)} vs ${
      plain.gateway.rps.toFixed(0)
    } req/s; stream ${stream.forwarder.rps.toFixed(0)} vs ${
      stream.gateway.rps.toFixed(0)
    }; p50 @1 ${atOne.forwarder.p50_ms} vs ${atOne.gateway.p50_ms} ms`,
  );
  return figures;
}

function roundErrors(rounds: RoundFigures[]): string[] {
  const errors: string[] = [];
  rounds.forEach((round, i) => {
    for (const [name, run] of Object.entries(round)) {
      if (run.errors) {
        errors.push(`round ${i + 1}, ${name}: ${run.errors} non-2xx or socket errors`);
      }
    }
  });
  return errors;
}

interface TtfbRow {
  name: string;
  result: LoadResult;
}

/** Streams of the messages format: straight to the upstream, passed through, converted. */
async function measureTextStreams(
  servers: { upstream: ServerProcess; forwarder: ServerProcess; gateway: ServerProcess },
  key: string,
  config: { latencySeconds: number },
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
    const result = await load({ ...target, key }, {
      connections: 1,
      seconds: config.latencySeconds,
      warmup: 1,
    });
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

/** KV operations per chat request over one loaded run of the funded key. */
async function kvOperationsPerRequest(
  generator: Generator,
  target: { gatewayUrl: string; key: string },
  config: BenchConfig,
): Promise<Record<string, number>> {
  const before = await metricValues(target.gatewayUrl);
  await generator.run(
    { url: target.gatewayUrl + CHAT_PATH, key: target.key, body: PLAIN_BODY },
    { connections: config.connections, seconds: Math.min(config.seconds, 3) },
  );
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const after = await metricValues(target.gatewayUrl);
  const requests = after.chatOk - before.chatOk;
  return Object.fromEntries(
    Object.entries(after.kvOps).map((
      [op, count],
    ) => [op, (count - (before.kvOps[op] ?? 0)) / requests]).filter(([, perRequest]) =>
      (perRequest as number) > 0
    ),
  );
}

/** What BENCH_ONLY may name: one part of the bench, run alone. */
const MODES = [
  "streams",
  "scaling",
  "soak",
  "stored",
  "dead_channel",
  "embeddings",
  "fairness",
] as const;
type Mode = typeof MODES[number];

function benchMode(): Mode | null {
  const only = Deno.env.get("BENCH_ONLY");
  if (!only) return null;
  if (!(MODES as readonly string[]).includes(only)) {
    throw new Error(`BENCH_ONLY must be one of ${MODES.join(", ")}; got ${only}`);
  }
  return only as Mode;
}

/** A fresh forwarder and gateway (on its own KV file) for one stream-memory measure. */
async function startStreamServers(
  upstream: ServerProcess,
  kvPrefix: string,
): Promise<StreamServers> {
  const forwarder = await startServer({
    name: FORWARDER,
    args: ["run", "-q", "--allow-net", "--allow-env", "bench/bare_forwarder.ts"],
    cwd: ROOT,
    env: { UPSTREAM_URL: upstream.url },
  });
  const pump = await startPumpForwarder(upstream).catch(async (error) => {
    await forwarder.stop();
    throw error;
  });
  const gateway = await startGatewayProcess(`${kvPrefix}.kv`).catch(async (error) => {
    await Promise.all([forwarder.stop(), pump.stop()]);
    throw error;
  });
  const keys = await seed(gateway.url, upstream.url);
  return {
    gateway: { url: gateway.url + CHAT_PATH, key: keys.text.key, pid: gateway.pid },
    forwarder: { url: forwarder.url + CHAT_PATH, key: keys.text.key, pid: forwarder.pid },
    pump: { url: pump.url + CHAT_PATH, key: keys.text.key, pid: pump.pid },
    stop: async () => {
      await Promise.all([gateway.stop(), forwarder.stop(), pump.stop()]);
    },
  };
}

/** The bare forwarder copying bodies through a JavaScript stream (the floor for stream memory). */
function startPumpForwarder(upstream: ServerProcess): Promise<ServerProcess> {
  return startForwarderCopying(upstream, { name: "JS-pump forwarder", body: "js-pump" });
}

/** The bare forwarder handling each answer's body in JavaScript (`FORWARDER_BODY`). */
function startForwarderCopying(
  upstream: ServerProcess,
  { name, body }: { name: string; body: "js-pump" | "read-whole" },
): Promise<ServerProcess> {
  return startServer({
    name,
    args: ["run", "-q", "--allow-net", "--allow-env", "bench/bare_forwarder.ts"],
    cwd: ROOT,
    env: { UPSTREAM_URL: upstream.url, FORWARDER_BODY: body },
  });
}

/** A TCP port free right now, for the gateway's inspector. */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Starts the gateway (main.ts) on the KV file `kvPath`. */
async function startGatewayProcess(
  kvPath: string,
  options: { name?: string; inspectPort?: number } = {},
): Promise<ServerProcess> {
  const gateway = await startServer({
    name: options.name ?? GATEWAY,
    args: [
      "run",
      "-q",
      "--allow-all",
      ...gatewayV8Flags(),
      ...(options.inspectPort ? [`--inspect=127.0.0.1:${options.inspectPort}`] : []),
      "main.ts",
    ],
    cwd: ROOT,
    env: {
      PORT: "0",
      HOST: "127.0.0.1",
      GATEWAY_KV: kvPath,
      GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
      GATEWAY_LOG_REQUESTS: "0",
      GATEWAY_KV_COUNT_OPS: "1",
    },
    readyTimeoutMs: 600_000,
  });
  await waitForOk(`${gateway.url}/healthz`);
  return gateway;
}

function gatewayOutput(gateway: ServerProcess): string {
  const noise = gateway.stderr.filter((line) => line.trim() && !line.includes("Debugger"));
  const stdoutExtra = gateway.stdout.filter((line) => !line.includes('"listening"'));
  return noise.length || stdoutExtra.length
    ? ["Gateway output during the run (last lines):", ...stdoutExtra, ...noise].join("\n  ")
    : "Gateway output during the run: nothing besides the listening line";
}

function envInt(name: string, fallback: number): number {
  const value = Number(Deno.env.get(name) ?? fallback);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number`);
  return value;
}

/** BENCH_ONLY=stored: a gateway on a filled KV file against one on an empty file. */
async function runStoredComparison(
  generator: Generator,
  context: { tmp: string; empty: ServerProcess; upstream: ServerProcess; started: ServerProcess[] },
  config: BenchConfig,
): Promise<void> {
  const counts: StoredCounts = {
    keys: envInt("BENCH_STORED_KEYS", 10_000),
    records: envInt("BENCH_STORED_RECORDS", 1_000_000),
    tasks: envInt("BENCH_STORED_TASKS", 1_000),
    channels: envInt("BENCH_STORED_CHANNELS", 20),
  };
  // BENCH_STORED_KV keeps the filled file for the next run (writing 1M records takes minutes).
  const kept = Deno.env.get("BENCH_STORED_KV");
  const kvPath = kept ?? `${context.tmp}/stored.kv`;
  if (kept && await Deno.stat(kept).then(() => true, () => false)) {
    log(`using the stored data already in ${kept} (written with the same BENCH_STORED_* counts)`);
  } else {
    log(`writing stored data: ${JSON.stringify(counts)}`);
    const seeding = performance.now();
    await seedStoredData(kvPath, counts);
    log(`stored data written in ${((performance.now() - seeding) / 1000).toFixed(0)} s`);
  }
  const booting = performance.now();
  const stored = await startGatewayProcess(kvPath, { name: "gateway (stored data)" });
  const bootSeconds = (performance.now() - booting) / 1000;
  context.started.push(stored);
  const emptyKeys = await seed(context.empty.url, context.upstream.url);
  const storedKeys = await seed(stored.url, context.upstream.url);
  await sanityCheck(stored.url, storedKeys.funded.key);
  const figures = await measureStoredCost(generator, {
    empty: {
      url: context.empty.url + CHAT_PATH,
      key: emptyKeys.funded.key,
      pid: context.empty.pid,
    },
    stored: { url: stored.url + CHAT_PATH, key: storedKeys.funded.key, pid: stored.pid },
    body: PLAIN_BODY,
  }, {
    rounds: config.rounds,
    seconds: config.seconds,
    latencySeconds: config.latencySeconds,
    log,
  });
  console.log("");
  console.log(
    formatStoredCost(figures, {
      counts,
      rounds: config.rounds,
      seconds: config.seconds,
      bootSeconds,
    }),
  );
  console.log(gatewayOutput(stored));
}

/** The soak (BENCH_ONLY=soak, or after the full run when BENCH_SOAK_SECONDS is set). */
async function runSoakReport(
  generator: Generator,
  target: { gateway: ServerProcess; key: string; inspectPort?: number },
  seconds: number,
): Promise<void> {
  const heap = target.inspectPort
    ? await HeapReader.connect(target.inspectPort).catch((error) => {
      log(`no heap readings: the inspector did not answer (${error})`);
      return null;
    })
    : null;
  try {
    const result = await runSoak(generator, {
      pid: target.gateway.pid,
      url: target.gateway.url + CHAT_PATH,
      key: target.key,
      plainBody: PLAIN_BODY,
      streamBody: STREAM_BODY,
    }, {
      seconds,
      sampleSeconds: Math.max(2, Math.round(seconds / 40)),
      heap,
      log,
    });
    console.log("");
    console.log(formatSoak(summarizeSoak(result.samples), result));
  } finally {
    heap?.close();
  }
}

async function main(): Promise<void> {
  const mode = benchMode();
  const generator = await chooseGenerator();
  const soakSeconds = Deno.env.get("BENCH_SOAK_SECONDS")
    ? envSeconds("BENCH_SOAK_SECONDS", 600)
    : mode === "soak"
    ? 600
    : 0;
  const config: BenchConfig = {
    generator: generator.name,
    connections: 32,
    seconds: envSeconds("BENCH_SECONDS", 5),
    latencySeconds: 3,
    rounds: Math.max(1, Math.round(envSeconds("BENCH_ROUNDS", 3))),
    streams: parseCounts(
      Deno.env.get("BENCH_STREAMS") ?? (mode === "streams" ? "100,1000,5000" : "1000"),
    ),
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
    const inspectPort = mode === "soak" ? freePort() : undefined;
    const kv = Deno.env.get("BENCH_KV") || `${tmp}/bench.kv`;
    const gateway = await startGatewayProcess(kv, { inspectPort });
    started.push(gateway);
    log(`upstream ${upstream.url}, forwarder ${forwarder.url}, gateway ${gateway.url}`);
    log(`load generator: ${generator.name}`);
    log(`machine: ${navigator.hardwareConcurrency} cores, load average ${loadAverage()}`);

    if (mode === "fairness") {
      const fairness = await measureFairness(upstream.url, {
        seconds: config.seconds,
        connections: FAIRNESS_CONNECTIONS,
      });
      console.log("");
      console.log(formatFairness(fairness));
      return;
    }
    if (mode === "stored") {
      await runStoredComparison(generator, { tmp, empty: gateway, upstream, started }, config);
      return;
    }
    const keys = await seed(gateway.url, upstream.url);
    await seedEmbeddings(gateway.url, upstream.url);
    const embeddingRows = async () => {
      const reader = await startForwarderCopying(upstream, {
        name: "reading forwarder",
        body: "read-whole",
      });
      started.push(reader);
      try {
        return await measureEmbeddingRows(generator, {
          forwarder: forwarder.url,
          reader: reader.url,
          gateway: gateway.url,
          key: keys.funded.key,
        }, { ...config, log });
      } finally {
        await reader.stop();
      }
    };
    if (mode === "embeddings") {
      await sanityCheck(gateway.url, keys.funded.key);
      const rows = await embeddingRows();
      console.log("");
      console.log(formatEmbeddingRows(rows, config));
      console.log(gatewayOutput(gateway));
      return;
    }
    if (mode === "soak") {
      await sanityCheck(gateway.url, keys.funded.key);
      await runSoakReport(generator, { gateway, key: keys.funded.key, inspectPort }, soakSeconds);
      console.log(gatewayOutput(gateway));
      return;
    }
    if (mode === "dead_channel") {
      await sanityCheck(gateway.url, keys.funded.key);
      const rows = await measureDeadChannel(generator, {
        gatewayUrl: gateway.url,
        path: CHAT_PATH,
        key: keys.funded.key,
        body: PLAIN_BODY,
      }, {
        rounds: config.rounds,
        seconds: config.seconds,
        latencySeconds: config.latencySeconds,
        log,
      });
      console.log("");
      console.log(formatDeadChannel(rows, { rounds: config.rounds, seconds: config.seconds }));
      console.log(gatewayOutput(gateway));
      return;
    }
    if (mode === "scaling") {
      await sanityCheck(gateway.url, keys.funded.key);
      const rows = await measureScaling(generator, {
        forwarder: forwarder.url + CHAT_PATH,
        gateway: gateway.url + CHAT_PATH,
        key: keys.funded.key,
        body: PLAIN_BODY,
      }, { connections: SCALING_CONNECTIONS, seconds: config.seconds, rounds: config.rounds, log });
      console.log("");
      console.log(formatScaling(rows, { rounds: config.rounds, seconds: config.seconds }));
      console.log(gatewayOutput(gateway));
      return;
    }

    // Memory first, before load has grown the heaps.
    const rssFresh = rssNumberMb(gateway.pid);
    log(`opening ${config.streams.join(", ")} held streams through each server`);
    const pump = await startPumpForwarder(upstream);
    started.push(pump);
    const running: StreamServers = {
      gateway: { url: gateway.url + CHAT_PATH, key: keys.text.key, pid: gateway.pid },
      forwarder: { url: forwarder.url + CHAT_PATH, key: keys.text.key, pid: forwarder.pid },
      pump: { url: pump.url + CHAT_PATH, key: keys.text.key, pid: pump.pid },
      // The JS pump is needed for the streams only.
      stop: () => pump.stop(),
    };
    let fresh = 0;
    const streamRows = await measureStreamMemory(
      // The servers just started serve the first count; every other count gets fresh ones.
      () =>
        fresh++ === 0 ? Promise.resolve(running) : startStreamServers(upstream, `${tmp}/s${fresh}`),
      { counts: config.streams, rounds: mode === "streams" ? config.rounds : 1, log },
    );
    if (mode === "streams") {
      console.log("");
      console.log(formatStreamMemory(streamRows, config.rounds));
      console.log(`Gateway RSS at start: ${rssFresh?.toFixed(0)} MB`);
      return;
    }
    const streamRow = streamRows.find((row) => row.count === 1000) ?? streamRows[0];
    const baseline = await metricValues(gateway.url);
    await sanityCheck(gateway.url, keys.funded.key);
    log("sanity check passed");

    const ceiling = generator.name.startsWith("wrk")
      ? `Generator: wrk, a C load generator that outpaces every server here.`
      : await generatorCeiling(
        generator,
        { upstream: upstream.url + CHAT_PATH, forwarder: forwarder.url + CHAT_PATH },
        { key: keys.funded.key, connections: config.connections, seconds: config.seconds },
      );
    log(ceiling);

    const rounds: RoundFigures[] = [];
    for (let round = 0; round < config.rounds; round++) {
      rounds.push(
        await measureRound(generator, round, {
          forwarder: { url: forwarder.url + CHAT_PATH, pid: forwarder.pid },
          gateway: { url: gateway.url + CHAT_PATH, pid: gateway.pid },
          key: keys.funded.key,
        }, config),
      );
    }
    const kvOps = await kvOperationsPerRequest(
      generator,
      { gatewayUrl: gateway.url, key: keys.funded.key },
      config,
    );
    const afterLoad = await metricValues(gateway.url);
    const ledger = await ledgerCheck(gateway.url, {
      keyId: keys.funded.id,
      okRequests: afterLoad.chatOk - baseline.chatOk,
      countedCost: afterLoad.cost - baseline.cost,
      startBalance: FUNDED_BALANCE,
    });

    const textStreams = await measureTextStreams(
      { upstream, forwarder, gateway },
      keys.text.key,
      { latencySeconds: config.latencySeconds },
    );
    const scaling = await measureScaling(generator, {
      forwarder: forwarder.url + CHAT_PATH,
      gateway: gateway.url + CHAT_PATH,
      key: keys.funded.key,
      body: PLAIN_BODY,
    }, {
      connections: SCALING_CONNECTIONS,
      seconds: config.latencySeconds,
      rounds: config.rounds,
      log,
    });
    const embeddings = await embeddingRows();
    const rssIdle = rssNumberMb(gateway.pid);

    const of = (pick: (round: RoundFigures) => number) => spreadOf(rounds.map(pick));
    const added = (a: number | null, b: number | null) => (a ?? NaN) - (b ?? NaN);
    const passThrough = textStreams.find((row) => row.name.includes("pass-through"))!.result;
    const figures: TrackedFigures = {
      forwarderRps: of((r) => r.forwarder.rps),
      gatewayRps: of((r) => r.gateway.rps),
      forwarderStreamRps: of((r) => r.forwarderStream.rps),
      gatewayStreamRps: of((r) => r.gatewayStream.rps),
      throughputRatio: of((r) => r.gateway.rps / r.forwarder.rps),
      streamThroughputRatio: of((r) => r.gatewayStream.rps / r.forwarderStream.rps),
      forwarderCpuUs: of((r) => r.forwarder.cpuUs),
      gatewayCpuUs: of((r) => r.gateway.cpuUs),
      forwarderStreamCpuUs: of((r) => r.forwarderStream.cpuUs),
      gatewayStreamCpuUs: of((r) => r.gatewayStream.cpuUs),
      addedP50Ms: of((r) => added(r.gatewayAtOne.p50_ms, r.forwarderAtOne.p50_ms)),
      addedP99Ms: of((r) => added(r.gatewayAtOne.p99_ms, r.forwarderAtOne.p99_ms)),
      addedTtfbMs: passThrough.relay_p50_ms,
      rssOpenStreams: {
        gatewayMb: streamRow.gatewayMb.median,
        forwarderMb: streamRow.forwarderMb.median,
        pumpMb: streamRow.pumpMb.median,
        open: streamRow.open,
      },
      kvOpsPerRequest: kvOps,
      errors: roundErrors(rounds),
    };
    console.log("");
    console.log(ceiling);
    console.log("");
    console.log(formatReport(config, figures));
    console.log("");
    console.log(formatTextStreams(textStreams));
    console.log("");
    console.log(formatStreamCpu());
    console.log("");
    console.log(formatStreamMemory(streamRows, 1));
    console.log("");
    console.log(formatScaling(scaling, { rounds: config.rounds, seconds: config.latencySeconds }));
    console.log("");
    console.log(formatEmbeddingRows(embeddings, config));
    console.log("");
    console.log(`Ledger, funded key: ${ledger}`);
    console.log(
      `Gateway RSS: ${rssFresh?.toFixed(0)} MB at start; ${
        rssIdle?.toFixed(0)
      } MB after the load runs`,
    );
    if (soakSeconds) await runSoakReport(generator, { gateway, key: keys.funded.key }, soakSeconds);
    console.log(gatewayOutput(gateway));
  } finally {
    Deno.removeSignalListener("SIGINT", onSignal);
    Deno.removeSignalListener("SIGTERM", onSignal);
    await stopAll();
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
}

/** The 1-minute load average (Linux), to say how busy the machine was. */
function loadAverage(): string {
  try {
    return Deno.readTextFileSync("/proc/loadavg").split(" ")[0];
  } catch {
    return "unknown";
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
