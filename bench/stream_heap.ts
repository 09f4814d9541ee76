/**
 * What one open stream costs inside a server, read from within: the server runs in this process
 * (the fixed upstream and the clients in their own), and after a full GC on each side of opening
 * the streams this prints the growth of RSS, V8 heap (total and used) and external memory per
 * stream, and V8's spaces. `--snapshot=file` also writes heap snapshots before and after (open
 * them in Chrome DevTools, Memory tab, "Comparison"). Servers: `gateway` (main.ts on a fresh KV),
 * `forwarder` (bench/bare_forwarder.ts: the upstream's body handed back as is) and `js-pump` (the
 * same forwarder with the body copied through a JavaScript ReadableStream, the least any server
 * that rewrites a stream can do).
 *
 *   deno run -A --v8-flags=--expose-gc bench/stream_heap.ts --server=gateway --count=1000
 *   (--prompt-kb=100: every request with a 100 KB user message)
 */

import { getHeapSpaceStatistics, writeHeapSnapshot } from "node:v8";
import { startGateway } from "../main.ts";
import { readSettings } from "../core/settings.ts";
import { forward, forwardThroughJsStream } from "./bare_forwarder.ts";
import { startServer } from "./processes.ts";
import { ADMIN_TOKEN, CHAT_PATH, HELD_STREAM_BODY, seed } from "./gateway_checks.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);
const SERVERS = ["gateway", "forwarder", "js-pump"] as const;
type ServerName = typeof SERVERS[number];

function arg(name: string, fallback?: string): string {
  const found = Deno.args.find((value) => value.startsWith(`--${name}=`));
  const value = found?.slice(name.length + 3) ?? fallback;
  if (value === undefined) throw new Error(`missing --${name}=`);
  return value;
}

async function startInProcess(
  name: ServerName,
  upstream: string,
  tmp: string,
): Promise<{ url: string; key: string }> {
  if (name === "gateway") {
    const env = (variable: string) =>
      ({
        GATEWAY_KV: `${tmp}/gateway.kv`,
        GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
        GATEWAY_LOG_REQUESTS: "0",
        PORT: "0",
        HOST: "127.0.0.1",
      } as Record<string, string>)[variable] ?? Deno.env.get(variable);
    const running = await startGateway(readSettings(env), { quiet: true });
    const keys = await seed(running.url, upstream);
    return { url: running.url, key: keys.text.key };
  }
  const handler = name === "forwarder"
    ? (request: Request) => forward(upstream, request)
    : (request: Request) => forwardThroughJsStream(upstream, request);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler);
  return { url: `http://127.0.0.1:${server.addr.port}`, key: "unused" };
}

function collect(): Deno.MemoryUsage {
  // deno-lint-ignore no-explicit-any
  const gc = (globalThis as any).gc as (() => void) | undefined;
  if (!gc) throw new Error("run with --v8-flags=--expose-gc");
  gc();
  gc();
  return Deno.memoryUsage();
}

if (import.meta.main) {
  const name = arg("server", "gateway") as ServerName;
  if (!SERVERS.includes(name)) throw new Error(`--server must be one of ${SERVERS.join(", ")}`);
  const count = Number(arg("count", "1000"));
  // --prompt-kb=N: each request carries a user message of N KB (coding agents send 100 KB+).
  const promptKb = Number(arg("prompt-kb", "0"));
  const body = promptKb
    ? JSON.stringify({
      ...JSON.parse(HELD_STREAM_BODY),
      messages: [{ role: "user", content: "word ".repeat(promptKb * 205) }],
    })
    : HELD_STREAM_BODY;
  const snapshot = Deno.args.find((value) => value.startsWith("--snapshot="))?.slice(11);
  const tmp = await Deno.makeTempDir({ prefix: "stream-heap-" });
  const upstream = await startServer({
    name: "fixed upstream",
    args: ["run", "-q", "--allow-net", "--allow-env", "bench/fixed_upstream.ts"],
    cwd: ROOT,
  });
  const target = await startInProcess(name, upstream.url, tmp);
  const before = collect();
  if (snapshot) writeHeapSnapshot(`${snapshot}.before.heapsnapshot`);
  const clients = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-q",
      "--allow-net",
      "bench/open_streams.ts",
      `--url=${target.url}${CHAT_PATH}`,
      `--key=${target.key}`,
      `--body=${body}`,
      `--count=${count}`,
    ],
    cwd: ROOT,
    stdout: "piped",
  }).spawn();
  const line = (await clients.stdout.pipeThrough(new TextDecoderStream()).getReader().read()).value;
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const after = collect();
  if (snapshot) writeHeapSnapshot(`${snapshot}.after.heapsnapshot`);
  console.log(`${name}: ${line?.trim()}`);
  for (const field of ["rss", "heapTotal", "heapUsed", "external"] as const) {
    const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
    const perStream = (after[field] - before[field]) / 1024 / count;
    console.log(
      `${field.padEnd(9)} ${mb(before[field])} → ${mb(after[field])} MB, ${
        perStream.toFixed(1)
      } KB per stream`,
    );
  }
  for (const space of getHeapSpaceStatistics()) {
    if (space.space_size < 1024 * 1024) continue;
    console.log(
      `  ${space.space_name}: ${(space.space_size / 1024 / 1024).toFixed(1)} MB, ${
        (space.space_used_size / 1024 / 1024).toFixed(1)
      } MB used`,
    );
  }
  clients.kill("SIGKILL");
  await clients.status;
  await upstream.stop();
  await Deno.remove(tmp, { recursive: true }).catch(() => {});
  Deno.exit(0);
}
