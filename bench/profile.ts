/**
 * `deno task bench:profile`: the gateway under wrk with V8's CPU profiler on, then where its
 * main-thread time went per request, by area of code (self time), and the CPU of each kind of
 * thread per request. Needs wrk. PROFILE_SERVER=forwarder profiles the bare forwarder instead.
 * Env: PROFILE_SECONDS (default 10), PROFILE_CONNECTIONS (default 32), PROFILE_BODY=stream or
 * embeddings (POST /v1/embeddings, floats, on an `openai` channel),
 * PROFILE_FUNCTIONS (how many functions to list, default 25), PROFILE_KV (a KV file to run on, e.g. a
 * copy of the stored-data bench's file; default a fresh one), PROFILE_OUT (where to keep the
 * .cpuprofile, for DevTools).
 */

import { startServer, waitForOk } from "./processes.ts";
import {
  ADMIN_TOKEN,
  CHAT_PATH,
  metricValues,
  PLAIN_BODY,
  seed,
  STREAM_BODY,
} from "./gateway_checks.ts";
import { runWrk } from "./wrk.ts";
import { EMBEDDINGS_BODY, EMBEDDINGS_PATH, seedEmbeddings } from "./embeddings.ts";
import { profileAreas, profileFunctions } from "./profile_areas.ts";
import { cpuPerRequest, threadCpuMs } from "./thread_cpu.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);

async function main(): Promise<void> {
  const seconds = Number(Deno.env.get("PROFILE_SECONDS") ?? 10);
  const connections = Number(Deno.env.get("PROFILE_CONNECTIONS") ?? 32);
  const kind = Deno.env.get("PROFILE_BODY");
  const embeddings = kind === "embeddings";
  const body = kind === "stream" ? STREAM_BODY : embeddings ? EMBEDDINGS_BODY : PLAIN_BODY;
  const path = embeddings ? EMBEDDINGS_PATH : CHAT_PATH;
  const tmp = await Deno.makeTempDir({ prefix: "gateway-profile-" });
  const upstream = await startServer({
    name: "fixed upstream",
    args: ["run", "-q", "--allow-net", "--allow-env", "bench/fixed_upstream.ts"],
    cwd: ROOT,
  });
  const forwarder = Deno.env.get("PROFILE_SERVER") === "forwarder";
  const server = await startServer(
    forwarder
      ? {
        name: "bare forwarder",
        args: [
          "run",
          "-q",
          "--allow-net",
          "--allow-env",
          "--cpu-prof",
          `--cpu-prof-dir=${tmp}`,
          "bench/bare_forwarder.ts",
        ],
        cwd: ROOT,
        env: { UPSTREAM_URL: upstream.url },
      }
      : {
        name: "gateway",
        args: ["run", "-q", "--allow-all", `--cpu-prof`, `--cpu-prof-dir=${tmp}`, "main.ts"],
        cwd: ROOT,
        env: {
          PORT: "0",
          HOST: "127.0.0.1",
          GATEWAY_KV: Deno.env.get("PROFILE_KV") ?? `${tmp}/profile.kv`,
          GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
          GATEWAY_LOG_REQUESTS: "0",
        },
        readyTimeoutMs: 120_000,
      },
  );
  try {
    let target = { url: server.url + path, key: "unused", body };
    if (!forwarder) {
      await waitForOk(`${server.url}/healthz`);
      const keys = await seed(server.url, upstream.url);
      if (embeddings) await seedEmbeddings(server.url, upstream.url);
      target = { ...target, key: keys.funded.key };
    }
    await runWrk(target, { connections, seconds: 2 });
    // The forwarder and the embeddings route count nothing the metrics name: wrk's requests, less
    // the errors.
    const byWrk = forwarder || embeddings;
    const before = byWrk ? 0 : (await metricValues(server.url)).chatOk;
    const threadsBefore = threadCpuMs(server.pid);
    const result = await runWrk(target, { connections, seconds });
    const ended = performance.now();
    const threads = threadCpuMs(server.pid);
    const requests = byWrk
      ? result.requests - result.errors
      : (await metricValues(server.url)).chatOk - before;
    await server.stop();
    // The profile's last (run + shutdown) milliseconds: start-up and warm-up left out.
    const lastMs = seconds * 1000 + (performance.now() - ended);
    const file = [...Deno.readDirSync(tmp)].find((entry) => entry.name.endsWith(".cpuprofile"));
    if (!file) throw new Error("the server wrote no CPU profile");
    const profile = JSON.parse(await Deno.readTextFile(`${tmp}/${file.name}`));
    const out = Deno.env.get("PROFILE_OUT");
    if (out) await Deno.copyFile(`${tmp}/${file.name}`, out);
    console.log(
      `${result.rps.toFixed(0)} req/s at ${connections} connections for ${seconds} s ` +
        `(${requests} requests; start-up and warm-up left out of the profile)`,
    );
    console.log("");
    console.log("| area | self ms | µs per request | share of busy time |");
    console.log("| --- | --- | --- | --- |");
    const areas = profileAreas(profile, { lastMs });
    const busy = areas.filter((area) => area.name !== "(idle)")
      .reduce((sum, area) => sum + area.selfMs, 0);
    for (const area of areas.slice(0, 25)) {
      const perRequest = (area.selfMs * 1000) / requests;
      const share = area.name === "(idle)" ? "-" : `${((area.selfMs / busy) * 100).toFixed(1)} %`;
      console.log(
        `| ${area.name} | ${area.selfMs.toFixed(0)} | ${perRequest.toFixed(1)} | ${share} |`,
      );
    }
    console.log("");
    console.log(`Busy main-thread time per request: ${((busy * 1000) / requests).toFixed(1)} µs`);
    console.log("");
    console.log("| thread (user + system CPU) | µs per request |");
    console.log("| --- | --- |");
    for (const row of cpuPerRequest(threadsBefore, threads, requests)) {
      console.log(`| ${row.kind} | ${row.us.toFixed(1)} |`);
    }
    console.log("");
    console.log("| function (self time; natives under their caller) | µs per request |");
    console.log("| --- | --- |");
    for (
      const fn of profileFunctions(profile, { lastMs }).filter((f) => f.name !== "(idle) (native)")
        .slice(0, Number(Deno.env.get("PROFILE_FUNCTIONS") ?? 25))
    ) {
      console.log(`| ${fn.name} | ${((fn.selfMs * 1000) / requests).toFixed(1)} |`);
    }
  } finally {
    await server.stop();
    await upstream.stop();
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) await main();
