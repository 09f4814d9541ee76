/**
 * A real PostgreSQL server for the tests of the PostgreSQL store: Debian's binaries (`PG_BIN`,
 * else the newest /usr/lib/postgresql/<version>/bin) start a cluster in a temp folder on a free
 * port, once per test module, stopped when the module ends; each test gets a database of its
 * own (`createStore`). As root (CI) the cluster runs as the `postgres` user, since PostgreSQL
 * refuses to run as root.
 *
 * Without PostgreSQL the tests that need it are ignored, and the module prints one line saying
 * why and how to install it; with GATEWAY_TEST_STRICT=1 (.ci/run) they fail instead.
 */

import { STRICT } from "./external_tools.ts";

const INSTALL =
  "apt-get install postgresql, or bash .ci/postgres-tools then PG_BIN=<its bin folder>";

export interface PostgresServer {
  /** `PostgreSQL 15.18`. */
  version: string;
  /**
   * A new empty store: a schema of its own in the cluster's database (a CREATE DATABASE takes
   * ten times longer); its URL names it as `search_path` (`options=-c search_path=…`).
   */
  createStore(): Promise<string>;
  /** Stops the server and removes its folder (synchronous, so it can run on `unload`). */
  stop(): void;
  /** Kills the server (immediate shutdown), keeping its data and port: the store is gone. */
  pause(): Promise<void>;
  /** Starts it again on the same data and port. */
  resume(): Promise<void>;
}

/**
 * The folder of initdb, pg_ctl, postgres and psql, when it can be found: `PG_BIN` (`none`: as if
 * PostgreSQL were not installed, for .ci/run's run with only Deno and Node), else Debian's.
 */
export function findPostgresBin(): string | undefined {
  const named = Deno.env.get("PG_BIN");
  const candidates = named ? [named] : installedBins();
  return candidates.find((bin) =>
    ["initdb", "pg_ctl", "postgres", "psql"].every((name) => isFile(`${bin}/${name}`))
  );
}

function installedBins(): string[] {
  try {
    return [...Deno.readDirSync("/usr/lib/postgresql")]
      .map((entry) => entry.name)
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a))
      .map((version) => `/usr/lib/postgresql/${version}/bin`);
  } catch {
    return [];
  }
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/** The command prefix that runs a server binary as a user PostgreSQL accepts. */
function asServerUser(): { prefix: string[]; uid?: number; gid?: number } {
  if (Deno.uid() !== 0) return { prefix: [] };
  const passwd = Deno.readTextFileSync("/etc/passwd").split("\n")
    .map((line) => line.split(":")).find((fields) => fields[0] === "postgres");
  const runuser = ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"].find(isFile);
  if (!passwd || !runuser) {
    throw new Error(
      "PostgreSQL cannot run as root, and there is no `postgres` user (or no runuser) to run it as",
    );
  }
  return { prefix: [runuser, "-u", "postgres", "--"], uid: +passwd[2], gid: +passwd[3] };
}

async function run(command: string[], what: string): Promise<string> {
  const output = await new Deno.Command(command[0], {
    args: command.slice(1),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
  if (!output.success) throw new Error(`${what} failed: ${text.trim().slice(-2_000)}`);
  return text;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Starts a cluster of the binaries in `bin` in a new temp folder, on a free port. */
/**
 * `durable`: commits are on disk's way before they are answered (`synchronous_commit` on), so a
 * server killed and started again (the outage tests) keeps every commit it answered; otherwise
 * the last ones may be lost, which is faster and fine for a server nobody kills.
 */
export async function startPostgres(
  bin: string,
  options: { durable?: boolean } = {},
): Promise<PostgresServer> {
  const user = asServerUser();
  const dir = await Deno.makeTempDir({ prefix: "gateway-pg-" });
  if (user.uid !== undefined) await Deno.chown(dir, user.uid, user.gid!);
  const data = `${dir}/data`;
  const port = freePort();
  const printed = await run([`${bin}/postgres`, "--version"], "postgres --version");
  const version = `PostgreSQL ${printed.match(/\d+(\.\d+)?/)?.[0] ?? "?"}`;
  await run(
    [
      ...user.prefix,
      `${bin}/initdb`,
      "-D",
      data,
      "-A",
      "trust",
      "-U",
      "postgres",
      "-E",
      "UTF8",
      "--locale=C",
      "--no-sync",
    ],
    "initdb",
  );
  const settings = [
    `-p ${port}`,
    `-k ${dir}`,
    "-c listen_addresses=127.0.0.1",
    "-c fsync=off",
    ...(options.durable ? [] : ["-c synchronous_commit=off"]),
    "-c full_page_writes=off",
    "-c max_connections=200",
  ].join(" ");
  const start = () =>
    run(
      [...user.prefix, `${bin}/pg_ctl`, "-D", data, "-l", `${dir}/server.log`, "-o", settings]
        .concat(["-w", "start"]),
      "pg_ctl start",
    );
  await start();
  let stopped = false;
  return {
    version,
    async createStore() {
      const name = `t_${crypto.randomUUID().replaceAll("-", "")}`;
      await run(
        [`${bin}/psql`, "-h", "127.0.0.1", "-p", `${port}`, "-U", "postgres", "-d", "postgres"]
          .concat(["-v", "ON_ERROR_STOP=1", "-q", "-c", `CREATE SCHEMA ${name}`]),
        "CREATE SCHEMA",
      );
      const options = encodeURIComponent(`-c search_path=${name}`);
      return `postgres://postgres@127.0.0.1:${port}/postgres?options=${options}`;
    },
    stop() {
      if (stopped) return;
      stopped = true;
      new Deno.Command(user.prefix[0] ?? `${bin}/pg_ctl`, {
        args: [...user.prefix.slice(1), ...(user.prefix.length ? [`${bin}/pg_ctl`] : [])]
          .concat(["-D", data, "-m", "immediate", "-w", "stop"]),
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).outputSync();
      Deno.removeSync(dir, { recursive: true });
    },
    async pause() {
      await run(
        [...user.prefix, `${bin}/pg_ctl`, "-D", data, "-m", "immediate", "-w", "stop"],
        "pg_ctl stop",
      );
    },
    async resume() {
      await start();
    },
  };
}

export type PostgresAvailability =
  | { server: PostgresServer; reason?: undefined }
  | { server?: undefined; reason: string };

let shared: Promise<PostgresAvailability> | undefined;

/**
 * This module's PostgreSQL server, started on first use and stopped when the module ends; or why
 * there is none.
 */
export function testPostgres(): Promise<PostgresAvailability> {
  return shared ??= (async () => {
    const bin = findPostgresBin();
    if (!bin) {
      const named = Deno.env.get("PG_BIN");
      return {
        reason: named
          ? `PostgreSQL not found in PG_BIN=${named}`
          : `PostgreSQL not found (${INSTALL})`,
      };
    }
    const server = await startPostgres(bin);
    globalThis.addEventListener("unload", () => server.stop());
    return { server };
  })();
}

/**
 * Registers a test that needs PostgreSQL: it gets a new store's URL. Ignored without
 * PostgreSQL (failing under GATEWAY_TEST_STRICT=1); `reportIgnored` prints the line.
 */
export async function postgresTests(): Promise<{
  available: PostgresAvailability;
  test(
    name: string,
    fn: (url: string, server: PostgresServer) => Promise<void>,
    options?: Omit<Deno.TestDefinition, "name" | "fn" | "ignore">,
  ): void;
  reportIgnored(file: string): void;
}> {
  const available = await testPostgres();
  const ignored: string[] = [];
  return {
    available,
    test(name, fn, options = {}) {
      const { server, reason } = available;
      if (server) {
        Deno.test({ ...options, name, fn: async () => fn(await server.createStore(), server) });
      } else if (STRICT) {
        Deno.test({
          ...options,
          name,
          fn: () => {
            throw new Error(`${reason}, and GATEWAY_TEST_STRICT=1`);
          },
        });
      } else {
        ignored.push(name);
        Deno.test({ ...options, name, ignore: true, fn: () => {} });
      }
    },
    reportIgnored(file) {
      if (!ignored.length) return;
      console.log(
        `${ignored.length} postgresql test${ignored.length === 1 ? "" : "s"} ignored in ` +
          `${file}: ${available.reason}`,
      );
    },
  };
}
