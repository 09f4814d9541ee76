/**
 * Drives load with wrk (the Debian package `wrk`): one POST body with a bearer key, N
 * connections, a duration. wrk is written in C and outpaces every server here, so what it
 * measures is the server, not the load generator.
 */

/** What one wrk run measured. Latencies in ms. */
export interface WrkResult {
  rps: number;
  requests: number;
  /** Non-2xx answers plus socket errors. */
  errors: number;
  p50_ms: number | null;
  p99_ms: number | null;
}

/** Whether `wrk` runs here. */
export async function wrkVersion(): Promise<string | null> {
  try {
    const output = await new Deno.Command("wrk", { args: ["--version"], stdout: "piped" })
      .output();
    const text = new TextDecoder().decode(output.stdout);
    return text.match(/wrk\s+(\S+)/)?.[1] ?? "unknown version";
  } catch {
    return null;
  }
}

function durationMs(value: string, unit: string): number {
  const number = Number(value);
  if (unit === "us") return number / 1000;
  if (unit === "s") return number * 1000;
  if (unit === "m") return number * 60_000;
  return number;
}

/** Reads wrk's `--latency` report. */
export function parseWrkOutput(text: string): WrkResult {
  const percentile = (p: string) => {
    const match = new RegExp(`^\\s*${p}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, "m").exec(text);
    return match ? durationMs(match[1], match[2]) : null;
  };
  const rps = Number(/^Requests\/sec:\s+([\d.]+)/m.exec(text)?.[1]);
  const requests = Number(/^\s*(\d+) requests in /m.exec(text)?.[1]);
  if (!Number.isFinite(rps) || !Number.isFinite(requests)) {
    throw new Error(`wrk printed no summary:\n${text}`);
  }
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(text)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  const socketErrors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
  return {
    rps,
    requests,
    errors: non2xx + socketErrors,
    p50_ms: percentile("50"),
    p99_ms: percentile("99"),
  };
}

function luaLongString(text: string): string {
  let level = 0;
  while (text.includes(`]${"=".repeat(level)}]`)) level++;
  const eq = "=".repeat(level);
  return `[${eq}[${text}]${eq}]`;
}

/** Runs wrk against `target` and returns what it measured. */
export async function runWrk(
  target: { url: string; key: string; body: string },
  options: { connections: number; seconds: number },
): Promise<WrkResult> {
  const script = await Deno.makeTempFile({ prefix: "bench-wrk-", suffix: ".lua" });
  try {
    await Deno.writeTextFile(
      script,
      [
        `wrk.method = "POST"`,
        `wrk.body = ${luaLongString(target.body)}`,
        `wrk.headers["content-type"] = "application/json"`,
        `wrk.headers["authorization"] = ${luaLongString(`Bearer ${target.key}`)}`,
      ].join("\n"),
    );
    const threads = Math.min(2, options.connections);
    const output = await new Deno.Command("wrk", {
      args: [
        `-t${threads}`,
        `-c${options.connections}`,
        `-d${options.seconds}s`,
        "--latency",
        "-s",
        script,
        target.url,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(output.stdout);
    if (!output.success) {
      throw new Error(`wrk failed: ${new TextDecoder().decode(output.stderr)}${text}`);
    }
    return parseWrkOutput(text);
  } finally {
    await Deno.remove(script).catch(() => {});
  }
}
