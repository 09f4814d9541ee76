/**
 * `deno task bench`: starts a fixed upstream, a bare forwarder and the gateway as separate
 * processes, seeds the gateway, then measures each target one at a time with bench/load.ts
 * (its own process) and prints a report. Env: BENCH_SECONDS (throughput duration, default 5).
 */

import type { LoadResult } from "./load.ts";
import { type ServerProcess, startServer, waitForOk } from "./processes.ts";
import { type BenchConfig, formatReport, type TargetResult } from "./report.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);
const ADMIN_TOKEN = "bench-admin";
const MODEL = "bench-model";
/** Units one request costs: 10 input and 5 output tokens at 1 and 2 units per token. */
const COST_PER_REQUEST = 20;
const PLAIN_BODY = JSON.stringify({
  model: MODEL,
  messages: [{ role: "user", content: "Say hello" }],
});
const STREAM_BODY = JSON.stringify({
  model: MODEL,
  messages: [{ role: "user", content: "Say hello" }],
  stream: true,
});
const CHAT_PATH = "/v1/chat/completions";
const FORWARDER = "bare forwarder";
const GATEWAY = "gateway";

function envSeconds(name: string, fallback: number): number {
  const value = Number(Deno.env.get(name) ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
}

function log(message: string): void {
  console.error(`[bench] ${message}`);
}

async function admin(
  gatewayUrl: string,
  method: string,
  path: string,
  body: unknown,
  expected: number,
): Promise<Record<string, unknown>> {
  const response = await fetch(gatewayUrl + path, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== expected) {
    throw new Error(`${method} ${path}: expected ${expected}, got ${response.status}: ${text}`);
  }
  return text ? JSON.parse(text) : {};
}

/** Registers the model, a channel to the fixed upstream and an unlimited key; returns the key. */
async function seed(gatewayUrl: string, upstreamUrl: string): Promise<{ id: string; key: string }> {
  await admin(gatewayUrl, "PUT", `/admin/models/${MODEL}`, {
    kind: "text",
    price: { input: 1_000_000, output: 2_000_000 },
  }, 200);
  await admin(gatewayUrl, "POST", "/admin/channels", {
    name: "bench",
    type: "openai",
    base_url: `${upstreamUrl}/v1`,
    keys: ["sk-bench"],
    models: [MODEL],
  }, 201);
  const created = await admin(gatewayUrl, "POST", "/admin/keys", {
    name: "bench",
    unlimited: true,
  }, 201);
  if (typeof created.key !== "string" || typeof created.id !== "string") {
    throw new Error(`POST /admin/keys answered without id/key: ${JSON.stringify(created)}`);
  }
  return { id: created.id, key: created.key };
}

async function chat(url: string, key: string, body: string): Promise<[number, string]> {
  const response = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body,
  });
  return [response.status, await response.text()];
}

/** One plain and one streaming request through the gateway must succeed before measuring. */
async function sanityCheck(gatewayUrl: string, key: string): Promise<void> {
  const [status, text] = await chat(gatewayUrl + CHAT_PATH, key, PLAIN_BODY);
  let choices: unknown;
  try {
    choices = JSON.parse(text).choices;
  } catch {
    choices = undefined;
  }
  if (status !== 200 || !Array.isArray(choices) || choices.length === 0) {
    throw new Error(`Sanity check failed: gateway answered ${status}: ${text}`);
  }
  const [streamStatus, streamText] = await chat(gatewayUrl + CHAT_PATH, key, STREAM_BODY);
  if (streamStatus !== 200 || !streamText.trimEnd().endsWith("data: [DONE]")) {
    throw new Error(
      `Streaming sanity check failed: gateway answered ${streamStatus}: ${streamText}`,
    );
  }
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
  const output = await new Deno.Command(Deno.execPath(), {
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
  }).output();
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

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits until the key's balance stops moving, then compares it with what was charged. */
async function ledgerCheck(gatewayUrl: string, keyId: string, okRequests: number): Promise<string> {
  let balance = NaN;
  for (let attempt = 0; attempt < 20; attempt++) {
    const record = await admin(gatewayUrl, "GET", `/admin/keys/${keyId}`, undefined, 200);
    const next = Number(record.balance);
    if (next === balance) break;
    balance = next;
    await sleep(250);
  }
  const expected = -okRequests * COST_PER_REQUEST;
  const verdict = balance === expected ? "matches" : `DIFFERS by ${balance - expected} units`;
  return `Ledger: ${okRequests} successful gateway requests x ${COST_PER_REQUEST} units = ` +
    `${expected}; key balance ${balance} (${verdict})`;
}

async function metricsSummary(gatewayUrl: string): Promise<string[]> {
  const response = await fetch(`${gatewayUrl}/metrics`);
  const text = await response.text();
  return text.split("\n").filter((line) =>
    /^gateway_(requests_total|upstream_attempts_total|cost_units_total)/.test(line)
  );
}

async function measure(
  servers: { upstream: ServerProcess; forwarder: ServerProcess; gateway: ServerProcess },
  key: string,
  config: BenchConfig,
): Promise<TargetResult[]> {
  const targets = [
    { name: "upstream direct", url: servers.upstream.url + CHAT_PATH },
    { name: FORWARDER, url: servers.forwarder.url + CHAT_PATH },
    { name: GATEWAY, url: servers.gateway.url + CHAT_PATH },
  ];
  const latency: LoadResult[] = [];
  const stream: LoadResult[] = [];
  const throughput: LoadResult[] = [];
  // One-connection runs first, so they do not pay for background work left by the loaded runs.
  for (const target of targets) {
    const result = await load(target.url, key, PLAIN_BODY, 1, config.latencySeconds, config.warmup);
    log(`${target.name} @1: ${describe(result)}`);
    latency.push(result);
  }
  for (const target of targets) {
    const result = await load(
      target.url,
      key,
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
      key,
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
    await stopAll();
    Deno.exit(130);
  };
  Deno.addSignalListener("SIGINT", onSignal);
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

    const { id, key } = await seed(gateway.url, upstream.url);
    await sanityCheck(gateway.url, key);
    log("sanity check passed; measuring (targets one at a time)");

    const results = await measure({ upstream, forwarder, gateway }, key, config);
    console.log("");
    console.log(formatReport(config, results, FORWARDER, GATEWAY));

    const gatewayResult = results.find((target) => target.name === GATEWAY)!;
    const okRequests = 2 + gatewayResult.latency.total_ok + gatewayResult.throughput.total_ok +
      (gatewayResult.stream?.total_ok ?? 0);
    console.log("");
    console.log(await ledgerCheck(gateway.url, id, okRequests));
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
