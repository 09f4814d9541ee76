/**
 * The KV Connect test server (the protocol of `Deno.openKv("http://…")`, after denokv's SQLite
 * backend) as a child process, for tests that hold a remote KV to the same rules as the embedded
 * one. It is a shared tool outside this repository: `GATEWAY_KV_CONNECT_SERVER` names it, else it
 * is looked for as `shared/tools/kv-connect-test-server.ts` beside the checkout or one of its
 * parents. Without it the tests that need it are ignored with a printed reason.
 */

import { freePort } from "./gateway_process.ts";

const FILE = "shared/tools/kv-connect-test-server.ts";

/** The server's script, when it can be found. */
export function findKvConnectServer(): string | undefined {
  const named = Deno.env.get("GATEWAY_KV_CONNECT_SERVER");
  if (named) return named;
  let dir = new URL("../../../", import.meta.url).pathname.replace(/\/$/, "");
  while (dir) {
    const path = `${dir}/${FILE}`;
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch {
      // not here: look one level up
    }
    dir = dir.replace(/\/[^/]*$/, "");
  }
  return undefined;
}

export interface KvConnectServer {
  /** The URL to give `Deno.openKv` (with `DENO_KV_ACCESS_TOKEN` set to `token`). */
  url: string;
  token: string;
  port: number;
  /** Kills the process (synchronous, so it can run on `unload`). */
  stop(): void;
  /** Kills the process with `signal` and waits until it exited (an outage of the store). */
  kill(signal?: Deno.Signal): Promise<void>;
}

export interface KvConnectServerOptions {
  /** The SQLite file (default: an in-memory database, gone with the process). */
  path?: string;
  /** Default: a free port. A restart passes the port and token it had. */
  port?: number;
  token?: string;
}

/** Starts `script` (by default on a free port with an in-memory database) and waits until it answers. */
export async function startKvConnectServer(
  script: string,
  options: KvConnectServerOptions = {},
): Promise<KvConnectServer> {
  const port = options.port ?? freePort();
  const token = options.token ?? `kv-connect-${crypto.randomUUID()}`;
  const path = options.path ?? ":memory:";
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script, "--port", String(port), "--path", path, "--token", token],
    stdin: "null",
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  let exited = false;
  const status = child.status.then(() => exited = true);
  const url = `http://127.0.0.1:${port}`;
  for (let tries = 0; !exited; tries++) {
    const up = await fetch(`${url}/__stats`).then(async (answer) => {
      await answer.body?.cancel();
      return true;
    }, () => false);
    if (up) break;
    if (tries > 300) {
      child.kill();
      throw new Error(`the KV Connect test server did not answer on ${url}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (exited) throw new Error(`the KV Connect test server (${script}) exited at start`);
  return {
    url,
    token,
    port,
    stop() {
      if (!exited) child.kill();
    },
    async kill(signal: Deno.Signal = "SIGKILL") {
      if (!exited) child.kill(signal);
      await status;
    },
  };
}
