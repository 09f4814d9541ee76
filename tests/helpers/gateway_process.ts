/** The gateway as a child process, as an operator runs it. */

import { isKvFile, storeEnv } from "./test_store.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

export interface GatewayProcess extends AsyncDisposable {
  child: Deno.ChildProcess;
  url: string;
  lines: string[];
  stderr: Promise<string>;
  /** Sends SIGTERM unless the process already exited, and waits for its exit. */
  [Symbol.asyncDispose](): Promise<void>;
}

export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

export interface SpawnOptions {
  /** Deno's permission flags (default `--allow-all`). */
  permissions?: string[];
  /** Start from an empty environment (then only `env`, HOME and DENO_DIR are passed on). */
  clearEnv?: boolean;
}

/** Starts `deno run main.ts` and waits for its "listening" line. */
export async function spawnGateway(
  env: Record<string, string>,
  port = freePort(),
  options: SpawnOptions = {},
): Promise<GatewayProcess> {
  const kept: Record<string, string> = {};
  for (const name of options.clearEnv ? ["HOME", "DENO_DIR", "NO_COLOR"] : []) {
    const value = Deno.env.get(name);
    if (value !== undefined) kept[name] = value;
  }
  // A KV file stands for this module's store (tests/helpers/test_store.ts).
  const store = isKvFile(env.GATEWAY_KV) ? await storeEnv(env.GATEWAY_KV) : {};
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...(options.permissions ?? ["--allow-all"]), MAIN],
    clearEnv: options.clearEnv,
    env: { ...kept, PORT: String(port), HOST: "127.0.0.1", ...env, ...store },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let exited = false;
  child.status.then(() => exited = true, () => exited = true);
  const lines: string[] = [];
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const stderr = new Response(child.stderr).text();
  let buffer = "";
  const readLines = (async () => {
    while (true) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      const parts = buffer.split("\n");
      buffer = parts.pop()!;
      lines.push(...parts);
    }
  })();
  for (let i = 0; i < 300 && !lines.some((line) => line.includes('"listening"')); i++) {
    const exited = await Promise.race([child.status, new Promise((r) => setTimeout(r, 50))]);
    if (exited) break;
  }
  readLines.catch(() => {});
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    lines,
    stderr,
    async [Symbol.asyncDispose]() {
      if (!exited) {
        try {
          child.kill("SIGTERM");
        } catch {
          // exited meanwhile
        }
      }
      await child.status;
    },
  };
}

/** Far beyond any shutdown deadline the tests set: a gateway still running then did not finish. */
const SHUTDOWN_GIVE_UP_MS = 120_000;

/**
 * Sends `gateway` SIGTERM and waits for it to exit by itself; throws when it is still running
 * long after its shutdown deadline. Its exit status.
 */
export async function terminated(gateway: GatewayProcess): Promise<Deno.CommandStatus> {
  gateway.child.kill("SIGTERM");
  let timer: ReturnType<typeof setTimeout> | undefined;
  const exited = await Promise.race([
    gateway.child.status,
    new Promise<null>((resolve) => timer = setTimeout(() => resolve(null), SHUTDOWN_GIVE_UP_MS)),
  ]);
  clearTimeout(timer);
  if (exited === null) {
    throw new Error("the gateway was still running long after its shutdown deadline");
  }
  return exited;
}
