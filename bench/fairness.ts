/**
 * BENCH_ONLY=fairness: one hot account served by two gateway processes on one remote store (the
 * KV Connect test server standing in for denokv), against one gateway alone on the same kind of
 * store. For a key with a credit floor (it spends from budget leases) and a key with a spend cap
 * (every request holds in the ledger): successes of each instance in the same window, their
 * ratio (fair: within 2×), and the p99 of two instances against one (fair: within 3×).
 *
 * Run alone: deno run -A bench/fairness.ts (BENCH_SECONDS, default 10; BENCH_FAIR_CONNECTIONS
 * per instance, default 16). The KV Connect test server is found as in the tests
 * (GATEWAY_KV_CONNECT_SERVER, else shared/tools/kv-connect-test-server.ts beside the checkout).
 * BENCH_KV=postgres://… runs the instances on that PostgreSQL database instead.
 */

import { type ServerProcess, startServer, waitForOk } from "./processes.ts";
import { admin, ADMIN_TOKEN, CHAT_PATH, MODEL, PLAIN_BODY } from "./gateway_checks.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const SERVER_FILE = "shared/tools/kv-connect-test-server.ts";

/** One instance's share of a run. */
export interface InstanceFigures {
  ok: number;
  errors: number;
  p50_ms: number | null;
  p99_ms: number | null;
}

export interface FairnessRow {
  scenario: "leased" | "capped";
  single: InstanceFigures;
  two: [InstanceFigures, InstanceFigures];
}

function findServer(): string | undefined {
  const named = Deno.env.get("GATEWAY_KV_CONNECT_SERVER");
  if (named) return named;
  let dir = ROOT.replace(/\/$/, "");
  while (dir) {
    try {
      if (Deno.statSync(`${dir}/${SERVER_FILE}`).isFile) return `${dir}/${SERVER_FILE}`;
    } catch {
      // not here: one level up
    }
    dir = dir.replace(/\/[^/]*$/, "");
  }
  return undefined;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** BENCH_KV when it is a PostgreSQL URL: the store the instances share instead of KV Connect. */
const POSTGRES = /^postgres(ql)?:\/\//.test(Deno.env.get("BENCH_KV") ?? "")
  ? Deno.env.get("BENCH_KV")!
  : undefined;
/** One secret key for every run on the PostgreSQL store (its channels' keys stay readable). */
const POSTGRES_SECRET = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));

/** The store's name in the figures. */
export const STORE_NAME = POSTGRES ? "PostgreSQL" : "KV Connect test server";

async function startStore(
  script: string,
  dir: string,
): Promise<ServerProcess & { env: Record<string, string> }> {
  if (POSTGRES) {
    // A database the operator runs: shared by the runs (each seeds an account of its own).
    return {
      name: STORE_NAME,
      pid: 0,
      port: 0,
      url: POSTGRES,
      stdout: [],
      stderr: [],
      env: { GATEWAY_KV: POSTGRES, GATEWAY_SECRET_KEY: POSTGRES_SECRET },
      stop: () => Promise.resolve(),
    };
  }
  const port = freePort();
  const token = `bench-${crypto.randomUUID()}`;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      script,
      "--port",
      String(port),
      "--path",
      `${dir}/store.sqlite`,
      "--token",
      token,
    ],
    stdout: "null",
    stderr: "null",
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  await waitForOk(`${url}/__stats`);
  const secret = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
  return {
    name: "KV Connect test server",
    pid: child.pid,
    port,
    url,
    stdout: [],
    stderr: [],
    env: { GATEWAY_KV: url, DENO_KV_ACCESS_TOKEN: token, GATEWAY_SECRET_KEY: secret },
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch {
        // gone already
      }
      await child.status;
    },
  };
}

async function startGateway(env: Record<string, string>, name: string): Promise<ServerProcess> {
  const gateway = await startServer({
    name,
    args: ["run", "-q", "--allow-all", "main.ts"],
    cwd: ROOT,
    env: {
      PORT: "0",
      HOST: "127.0.0.1",
      GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
      GATEWAY_LOG_REQUESTS: "0",
      ...env,
    },
  });
  await waitForOk(`${gateway.url}/healthz`);
  return gateway;
}

function percentile(sorted: number[], p: number): number | null {
  if (!sorted.length) return null;
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]);
}

/** `connections` fetch loops on `url` with `key` for `seconds`; what one instance served. */
async function hammer(
  url: string,
  key: string,
  options: { connections: number; seconds: number },
): Promise<InstanceFigures> {
  const end = Date.now() + options.seconds * 1000;
  const latencies: number[] = [];
  let errors = 0;
  const loop = async () => {
    while (Date.now() < end) {
      const started = performance.now();
      try {
        const response = await fetch(url + CHAT_PATH, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: PLAIN_BODY,
        });
        await response.arrayBuffer();
        if (response.ok) latencies.push(performance.now() - started);
        else errors++;
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: options.connections }, loop));
  latencies.sort((a, b) => a - b);
  return {
    ok: latencies.length,
    errors,
    p50_ms: percentile(latencies, 0.5),
    p99_ms: percentile(latencies, 0.99),
  };
}

async function seedAccount(gatewayUrl: string, upstreamUrl: string, capped: boolean) {
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
  const account = await admin(gatewayUrl, "POST", "/admin/accounts", {
    name: "hot",
    balance: 1_000_000_000,
  }, 201);
  const key = await admin(gatewayUrl, "POST", "/admin/keys", {
    name: "hot",
    account_id: account.id,
    ...(capped && { spend_limits: { day: 1_000_000_000 } }),
  }, 201);
  return key.key as string;
}

/** Waits until `gatewayUrl` serves `key` (a second instance follows the catalog within seconds). */
async function serves(gatewayUrl: string, key: string): Promise<void> {
  for (let tries = 0; tries < 300; tries++) {
    const response = await fetch(gatewayUrl + CHAT_PATH, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: PLAIN_BODY,
    });
    await response.arrayBuffer();
    if (response.ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${gatewayUrl} never served the hot key`);
}

/** One scenario: one instance alone, then two on a fresh store. */
async function measureScenario(
  script: string,
  upstreamUrl: string,
  options: { capped: boolean; connections: number; seconds: number },
): Promise<FairnessRow> {
  const run = async (instances: number) => {
    const dir = await Deno.makeTempDir({ prefix: "bench-fairness-" });
    const store = await startStore(script, dir);
    const gateways: ServerProcess[] = [];
    try {
      for (let i = 0; i < instances; i++) {
        gateways.push(await startGateway(store.env, `gateway ${i + 1}`));
      }
      const key = await seedAccount(gateways[0].url, upstreamUrl, options.capped);
      for (const gateway of gateways) await serves(gateway.url, key);
      // Each instance gets the same connections; one alone gets all of them.
      const connections = instances === 1 ? options.connections * 2 : options.connections;
      return await Promise.all(
        gateways.map((gateway) =>
          hammer(gateway.url, key, { connections, seconds: options.seconds })
        ),
      );
    } finally {
      await Promise.all(gateways.map((gateway) => gateway.stop()));
      await store.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  };
  const [single] = await run(1);
  const [first, second] = await run(2);
  return { scenario: options.capped ? "capped" : "leased", single, two: [first, second] };
}

/** Every scenario's row; null (with the reason) when the KV Connect test server is missing. */
export async function measureFairness(
  upstreamUrl: string,
  options: { seconds: number; connections: number },
): Promise<{ rows: FairnessRow[] } | { skipped: string }> {
  const script = POSTGRES ? "" : findServer();
  if (script === undefined) {
    return { skipped: `the KV Connect test server (${SERVER_FILE}) was not found` };
  }
  const rows: FairnessRow[] = [];
  for (const capped of [false, true]) {
    rows.push(await measureScenario(script, upstreamUrl, { ...options, capped }));
  }
  return { rows };
}

const ratio = (
  a: number,
  b: number,
) => (Math.min(a, b) > 0 ? Math.max(a, b) / Math.min(a, b) : Infinity);

/** The rows as text: per instance, the split, and p99 against one instance alone. */
export function formatFairness(result: { rows: FairnessRow[] } | { skipped: string }): string {
  if ("skipped" in result) return `Two-instance fairness: skipped (${result.skipped})`;
  const lines = [`Two-instance fairness (one hot account, ${STORE_NAME}):`];
  for (const row of result.rows) {
    const [a, b] = row.two;
    const split = ratio(a.ok, b.ok);
    const p99 = Math.max(a.p99_ms ?? Infinity, b.p99_ms ?? Infinity);
    const p99Ratio = row.single.p99_ms ? p99 / row.single.p99_ms : Infinity;
    lines.push(
      `  ${row.scenario.padEnd(7)} one alone: ${row.single.ok} ok, ${row.single.errors} errors, ` +
        `p50 ${row.single.p50_ms} ms, p99 ${row.single.p99_ms} ms`,
      `  ${"".padEnd(7)} two: ${a.ok} and ${b.ok} ok (${a.errors} and ${b.errors} errors), ` +
        `split ${split.toFixed(2)}× (fair ≤ 2×), p99 ${a.p99_ms} and ${b.p99_ms} ms, ` +
        `${p99Ratio.toFixed(2)}× one alone (fair ≤ 3×)`,
    );
  }
  return lines.join("\n");
}

if (import.meta.main) {
  const seconds = Number(Deno.env.get("BENCH_SECONDS") ?? 10);
  const connections = Number(Deno.env.get("BENCH_FAIR_CONNECTIONS") ?? 16);
  const upstream = await startServer({
    name: "fixed upstream",
    args: ["run", "-q", "--allow-net", "--allow-env", "bench/fixed_upstream.ts"],
    cwd: ROOT,
  });
  try {
    const result = await measureFairness(upstream.url, { seconds, connections });
    console.log(formatFairness(result));
    if (Deno.env.get("BENCH_JSON")) console.log(JSON.stringify(result));
  } finally {
    await upstream.stop();
  }
}
