/** The load generator of a bench run: wrk when installed, else bench/load.ts. */

import type { LoadResult } from "./load.ts";
import { runWrk, wrkVersion } from "./wrk.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);
/** Load generators and clients under way, killed if the bench is interrupted. */
export const runningLoads = new Set<Deno.ChildProcess>();

/** Runs bench/load.ts in its own process against `url`. */
export async function load(
  target: { url: string; key: string; body: string },
  options: { connections: number; seconds: number; warmup: number },
): Promise<LoadResult> {
  const { url, key, body } = target;
  const { connections, seconds, warmup } = options;
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

/** What one load run gives the rounds, from either generator. */
export interface RunFigures {
  rps: number;
  /** Requests completed in the measured window. */
  requests: number;
  p50_ms: number | null;
  p99_ms: number | null;
  errors: number;
}

export interface Generator {
  name: string;
  run(
    target: { url: string; key: string; body: string },
    options: { connections: number; seconds: number },
  ): Promise<RunFigures>;
}

export async function chooseGenerator(): Promise<Generator> {
  const version = Deno.env.get("BENCH_LOAD") === "deno" ? null : await wrkVersion();
  if (version) {
    return { name: `wrk ${version}`, run: (target, options) => runWrk(target, options) };
  }
  return {
    name: "bench/load.ts (Deno fetch loops)",
    run: (target, options) => load(target, { ...options, warmup: 1 }),
  };
}
