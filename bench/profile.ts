/**
 * `deno task bench:profile`: the gateway under wrk with V8's CPU profiler on, then where its
 * main-thread time went per request, by area of code (self time). Needs wrk.
 * Env: PROFILE_SECONDS (default 10), PROFILE_CONNECTIONS (default 32), PROFILE_BODY=stream,
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
import { profileAreas, profileFunctions } from "./profile_areas.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);

async function main(): Promise<void> {
  const seconds = Number(Deno.env.get("PROFILE_SECONDS") ?? 10);
  const connections = Number(Deno.env.get("PROFILE_CONNECTIONS") ?? 32);
  const body = Deno.env.get("PROFILE_BODY") === "stream" ? STREAM_BODY : PLAIN_BODY;
  const tmp = await Deno.makeTempDir({ prefix: "gateway-profile-" });
  const upstream = await startServer({
    name: "fixed upstream",
    args: ["run", "-q", "--allow-net", "--allow-env", "bench/fixed_upstream.ts"],
    cwd: ROOT,
  });
  const gateway = await startServer({
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
  });
  try {
    await waitForOk(`${gateway.url}/healthz`);
    const keys = await seed(gateway.url, upstream.url);
    const target = { url: gateway.url + CHAT_PATH, key: keys.funded.key, body };
    await runWrk(target, { connections, seconds: 2 });
    const before = (await metricValues(gateway.url)).chatOk;
    const cpuBefore = processCpuMs(gateway.pid);
    const result = await runWrk(target, { connections, seconds });
    const ended = performance.now();
    const cpuMs = processCpuMs(gateway.pid) - cpuBefore;
    const requests = (await metricValues(gateway.url)).chatOk - before;
    await gateway.stop();
    // The profile's last (run + shutdown) milliseconds: start-up and warm-up left out.
    const lastMs = seconds * 1000 + (performance.now() - ended);
    const file = [...Deno.readDirSync(tmp)].find((entry) => entry.name.endsWith(".cpuprofile"));
    if (!file) throw new Error("the gateway wrote no CPU profile");
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
    console.log(
      `Process CPU per request (every thread: main, KV, HTTP; user + system): ${
        ((cpuMs * 1000) / requests).toFixed(1)
      } µs`,
    );
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
    await gateway.stop();
    await upstream.stop();
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
}

/** User + system CPU of process `pid` and all its threads so far, ms (Linux /proc). */
function processCpuMs(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime are fields 14 and 15 of stat(5), 12 and 13 after the command's ")".
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

if (import.meta.main) await main();
