/**
 * A store that gateway processes share over the network, as a parameter of the several-instance
 * and outage tests: each kind says what a gateway's environment needs, and how to make the store
 * unreachable and bring it back with the same data at the same address. KV Connect (the test
 * server standing in for denokv) is one; another backend adds an entry to `REMOTE_STORES`.
 */

import { findKvConnectServer, startKvConnectServer } from "./kv_connect_server.ts";
import { freePort } from "./gateway_process.ts";
import { findPostgresBin, startPostgres } from "./postgres.ts";
import { STRICT } from "./external_tools.ts";

/** The secret key every instance on a shared store needs (the same on each). */
const SECRET_KEY = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));

export interface RemoteStore {
  /** What a gateway process needs in its environment to use the store (GATEWAY_KV, …). */
  env: Record<string, string>;
  /** Makes the store unreachable (its server is killed). */
  stop(): Promise<void>;
  /** Brings it back at the same address with the data it had. */
  start(): Promise<void>;
  /** Stops it and removes its data. */
  close(): Promise<void>;
}

export interface RemoteStoreKind {
  name: string;
  /** Why this kind cannot run here, or undefined when it can. */
  missing?: string;
  /** `.ci/run` installs it: under GATEWAY_TEST_STRICT=1 its absence fails the tests. */
  installedByCi?: boolean;
  /** `token`: the access token the store takes (default: a fresh one). */
  open(options?: { token?: string }): Promise<RemoteStore>;
}

function kvConnectKind(): RemoteStoreKind {
  const script = findKvConnectServer();
  return {
    name: "KV Connect",
    missing: script ? undefined : "the KV Connect test server (shared/tools/kv-connect-test-" +
      "server.ts) was not found beside the checkout: set GATEWAY_KV_CONNECT_SERVER to run these",
    async open(given = {}) {
      const dir = await Deno.makeTempDir({ prefix: "kv-connect-store-" });
      const options = { path: `${dir}/store.sqlite`, port: freePort(), token: "" };
      let server = await startKvConnectServer(script!, { ...options, token: given.token });
      options.token = server.token;
      let up = true;
      return {
        env: {
          GATEWAY_KV: server.url,
          DENO_KV_ACCESS_TOKEN: server.token,
          GATEWAY_SECRET_KEY: SECRET_KEY,
        },
        async stop() {
          up = false;
          await server.kill("SIGKILL");
        },
        async start() {
          server = await startKvConnectServer(script!, options);
          up = true;
        },
        async close() {
          if (up) await server.kill("SIGKILL");
          await Deno.remove(dir, { recursive: true }).catch(() => {});
        },
      };
    },
  };
}

/** A PostgreSQL cluster of its own per test (so stopping it stops nobody else's). */
function postgresKind(): RemoteStoreKind {
  const bin = findPostgresBin();
  return {
    name: "PostgreSQL",
    installedByCi: true,
    missing: bin ? undefined : "PostgreSQL not found (apt-get install postgresql, or PG_BIN)",
    async open() {
      const server = await startPostgres(bin!, { durable: true });
      const url = await server.createStore();
      return {
        env: { GATEWAY_KV: url, GATEWAY_SECRET_KEY: SECRET_KEY },
        stop: () => server.pause(),
        start: () => server.resume(),
        close() {
          // Stops it if it runs, and removes its folder either way.
          server.stop();
          return Promise.resolve();
        },
      };
    },
  };
}

/** The remote stores the tests run on. */
export const REMOTE_STORES: RemoteStoreKind[] = [kvConnectKind(), postgresKind()];

/**
 * Registers `fn` once per remote store (`<name> (<store>)`), ignored with a printed reason where
 * the store cannot run.
 */
export function remoteStoreTest(
  name: string,
  fn: (store: RemoteStore) => Promise<void>,
  testOptions: Omit<Deno.TestDefinition, "name" | "fn" | "ignore"> & {
    /**
     * The test opens the store in its own process (not only in gateway processes): the store then
     * takes this process's DENO_KV_ACCESS_TOKEN when one is set, since the test files of a
     * parallel run share one environment (and KV Connect reads the token from it).
     */
    inProcess?: boolean;
  } = {},
): void {
  const { inProcess, ...options } = testOptions;
  for (const kind of REMOTE_STORES) {
    // Under GATEWAY_TEST_STRICT=1 a store that cannot run fails its tests instead.
    const ignored = kind.missing !== undefined && !(STRICT && kind.installedByCi);
    if (ignored) console.log(`${name} (${kind.name}) ignored: ${kind.missing}`);
    Deno.test({
      ...options,
      name: `${name} (${kind.name})`,
      ignore: ignored,
      async fn() {
        if (kind.missing) throw new Error(`${kind.missing}, and GATEWAY_TEST_STRICT=1`);
        const token = inProcess ? Deno.env.get("DENO_KV_ACCESS_TOKEN") : undefined;
        const store = await kind.open({ token });
        try {
          await fn(store);
        } finally {
          await store.close();
        }
      },
    });
  }
}
