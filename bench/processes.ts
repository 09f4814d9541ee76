/** Starts bench servers as child processes, waits until they listen, and stops them. */

const KEEP_LINES = 200;
const STOP_GRACE_MS = 5_000;

/** A server child process that printed `{"msg":"listening","port":N}` on stdout. */
export interface ServerProcess {
  name: string;
  pid: number;
  port: number;
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The last lines the process wrote on stdout and stderr. */
  stdout: string[];
  stderr: string[];
  /** SIGTERM, then SIGKILL after a grace period; safe to call twice. */
  stop(): Promise<void>;
}

/** How to start one server. */
export interface ServerSpec {
  name: string;
  /** Arguments to the deno executable. */
  args: string[];
  cwd: string;
  env?: Record<string, string>;
  readyTimeoutMs?: number;
}

function keep(lines: string[], line: string): void {
  lines.push(line);
  if (lines.length > KEEP_LINES) lines.shift();
}

async function* readLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let pending = "";
  for await (const text of stream.pipeThrough(new TextDecoderStream())) {
    pending += text;
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    yield* lines;
  }
  if (pending) yield pending;
}

function listeningPort(line: string): number | undefined {
  if (!line.startsWith("{")) return undefined;
  try {
    const parsed: { msg?: unknown; port?: unknown } = JSON.parse(line);
    return parsed.msg === "listening" && typeof parsed.port === "number" ? parsed.port : undefined;
  } catch {
    return undefined;
  }
}

/** Reads stdout until the listening line; the rest of stdout is kept in `stdout`. */
async function waitForPort(lines: AsyncGenerator<string>, stdout: string[]): Promise<number> {
  for (let next = await lines.next(); !next.done; next = await lines.next()) {
    keep(stdout, next.value);
    const port = listeningPort(next.value);
    if (port !== undefined) {
      (async () => {
        for (let rest = await lines.next(); !rest.done; rest = await lines.next()) {
          keep(stdout, rest.value);
        }
      })();
      return port;
    }
  }
  throw new Error("stdout closed before the listening line");
}

function delay(ms: number): { promise: Promise<void>; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<void>((resolve) => timer = setTimeout(resolve, ms));
  return { promise, cancel: () => clearTimeout(timer) };
}

/** Starts `spec` and resolves once it prints its listening line; kills it if that fails. */
export async function startServer(spec: ServerSpec): Promise<ServerProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: spec.args,
    cwd: spec.cwd,
    env: spec.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout: string[] = [];
  const stderr: string[] = [];
  (async () => {
    for await (const line of readLines(child.stderr)) keep(stderr, line);
  })();

  let stopping: Promise<void> | undefined;
  const stop = () =>
    stopping ??= (async () => {
      const exited = child.status.then(() => true);
      try {
        child.kill("SIGTERM");
      } catch {
        // already exited
      }
      const grace = delay(STOP_GRACE_MS);
      const done = await Promise.race([exited, grace.promise.then(() => false)]);
      grace.cancel();
      if (!done) {
        try {
          child.kill("SIGKILL");
        } catch {
          // exited meanwhile
        }
        await child.status;
      }
    })();

  const timeout = delay(spec.readyTimeoutMs ?? 60_000);
  try {
    const port = await Promise.race([
      waitForPort(readLines(child.stdout), stdout),
      child.status.then((status) => {
        throw new Error(`exited with code ${status.code} before listening`);
      }),
      timeout.promise.then(() => {
        throw new Error("did not print its listening line in time");
      }),
    ]);
    return {
      name: spec.name,
      pid: child.pid,
      port,
      url: `http://127.0.0.1:${port}`,
      stdout,
      stderr,
      stop,
    };
  } catch (error) {
    await stop();
    const tail = [...stdout, ...stderr].slice(-20).join("\n");
    throw new Error(`${spec.name}: ${(error as Error).message}\n${tail}`);
  } finally {
    timeout.cancel();
  }
}

/** Polls `url` until it answers 200. */
export async function waitForOk(url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "no answer";
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      await response.body?.cancel();
      if (response.status === 200) return;
      last = `status ${response.status}`;
    } catch (error) {
      last = String(error);
    }
    await delay(100).promise;
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms: ${last}`);
}
