/**
 * Where this test module's gateways keep their data: a KV file (the default), or, after
 * `useTestStore("postgres")` (tests/helpers/on_postgres.ts), a store of its own on a real
 * PostgreSQL server (tests/helpers/postgres.ts) for each KV file path a test names, so that two
 * gateways given one path share one PostgreSQL store, as they would share the file.
 */

import { testPostgres } from "./postgres.ts";

let store: "kv" | "postgres" = "kv";

/** Puts this module's test gateways (in process and spawned) on a KV file or on PostgreSQL. */
export function useTestStore(kind: "kv" | "postgres"): void {
  store = kind;
}

/** Every instance of one PostgreSQL store needs the same secret key. */
const PG_SECRET_KEY = crypto.getRandomValues(new Uint8Array(32)).toBase64();
const storeOfPath = new Map<string, Promise<string>>();

async function newStore(): Promise<string> {
  const { server, reason } = await testPostgres();
  if (!server) throw new Error(`test gateways on PostgreSQL: ${reason}`);
  return await server.createStore();
}

/** The settings that put a gateway on this module's store in place of the KV file `kvPath`. */
export async function storeEnv(kvPath: string): Promise<Record<string, string>> {
  if (store === "kv") return { GATEWAY_KV: kvPath };
  let url = storeOfPath.get(kvPath);
  if (!url) storeOfPath.set(kvPath, url = newStore());
  return { GATEWAY_KV: await url, GATEWAY_SECRET_KEY: PG_SECRET_KEY, GATEWAY_PG_POOL: "4" };
}

/** Whether `location` (GATEWAY_KV) is a KV file, which `storeEnv` may stand in for. */
export function isKvFile(location: string | undefined): location is string {
  return !!location && location !== ":memory:" && !/^[a-z]+:\/\//i.test(location);
}
