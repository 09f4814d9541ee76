/**
 * Starts the real gateway on a real KV file in a temp directory, and talks to it over HTTP. A
 * module that calls `useTestStore("postgres")` first (tests/helpers/test_store.ts) gets each
 * gateway on a new store (schema) of a real PostgreSQL server instead (tests/helpers/postgres.ts).
 */

import { type RunningGateway, startGateway } from "../../main.ts";
import { isKvFile, storeEnv } from "./test_store.ts";
import type { KvBackend } from "../../core/kv/kv_backend.ts";
import { isPostgresKv } from "../../core/settings.ts";
import { openPostgresKv } from "../../core/kv/postgres/postgres_kv.ts";
import { readSettings } from "../../core/settings.ts";
import type { Resolver } from "../../core/webhooks/public_address.ts";

export const ADMIN_TOKEN = "test-admin-token";

export interface TestGateway extends AsyncDisposable {
  url: string;
  running: RunningGateway;
  /** The KV file, or on PostgreSQL the database's URL. */
  kvPath: string;
  // deno-lint-ignore no-explicit-any
  admin<T = any>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: T }>;
  /** Creates a key and returns its id and secret. */
  createKey(input?: Record<string, unknown>): Promise<{ id: string; key: string }>;
  /** Adds a model to the catalog. */
  putModel(id: string, input: Record<string, unknown>): Promise<void>;
  /** Adds an `openai` channel. */
  addChannel(input: Record<string, unknown>): Promise<{ id: string }>;
  balance(keyId: string): Promise<number>;
  /** Every ledger entry of a key, all pages. */
  ledger(
    keyId: string,
  ): Promise<
    Array<{ type: string; amount: number; ref: string; cost?: number; requests?: number }>
  >;
  /** Fails unless the key's entries sum to its balance; returns the balance. */
  assertLedgerInvariant(keyId: string): Promise<number>;
  /** Waits until background settles and log writes are done. */
  settle(): Promise<void>;
  /** Shuts the gateway down and removes its KV; `await using` does the same. */
  close(): Promise<void>;
}

/**
 * A second handle on a test gateway's store, as another instance would have: `location` is its
 * `kvPath` (a KV file, or a PostgreSQL URL), or the KV file path a spawned gateway was given (on
 * PostgreSQL, the store that path stands for). `using` closes it.
 */
export async function openStore(location: string): Promise<KvBackend & Disposable> {
  const url = isKvFile(location) ? (await storeEnv(location)).GATEWAY_KV : location;
  if (!isPostgresKv(url)) return await Deno.openKv(url);
  const kv = await openPostgresKv(url, { poolSize: 2, sweepEveryMs: 0 });
  return Object.assign(kv, { [Symbol.dispose]: () => kv.close() });
}

/** Text prices used throughout the tests: 1 unit per input token, 2 per output token. */
export const TEST_TEXT_PRICE = { input: 1_000_000, output: 2_000_000, cached_input: 500_000 };

export async function startTestGateway(
  env: Record<string, string> = {},
  options: { webhookResolve?: Resolver; now?: () => number } = {},
): Promise<TestGateway> {
  const dir = await Deno.makeTempDir({ prefix: "gateway-test-" });
  const store = await storeEnv(`${dir}/gateway.kv`);
  const kvPath = store.GATEWAY_KV;
  const settings = readSettings((name) =>
    ({
      PORT: "0",
      HOST: "127.0.0.1",
      ...store,
      GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
      GATEWAY_LOG_REQUESTS: "0",
      ...env,
    })[name]
  );
  const running = await startGateway(settings, { quiet: true, ...options });
  const url = running.url;

  const admin = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };

  const ledger = async (keyId: string) => {
    const entries = [];
    let cursor = "";
    do {
      const page = await admin(
        "GET",
        `/admin/ledger?key=${keyId}&order=asc&limit=1000&cursor=${cursor}`,
      );
      entries.push(...page.body.data);
      cursor = page.body.cursor ?? "";
    } while (cursor);
    return entries;
  };

  const settle = async () => {
    await running.gateway.drain();
  };

  const close = async () => {
    await running.shutdown();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };

  return {
    url,
    running,
    kvPath,
    admin,
    async createKey(input = {}) {
      const { status, body } = await admin("POST", "/admin/keys", { name: "test", ...input });
      if (status !== 201) throw new Error(`createKey: ${status} ${JSON.stringify(body)}`);
      return { id: body.id, key: body.key };
    },
    async putModel(id, input) {
      const { status, body } = await admin("PUT", `/admin/models/${id}`, input);
      if (status !== 200) throw new Error(`putModel: ${status} ${JSON.stringify(body)}`);
    },
    async addChannel(input) {
      const { status, body } = await admin("POST", "/admin/channels", {
        name: "sim",
        type: "openai",
        keys: ["sk-upstream-test"],
        ...input,
      });
      if (status !== 201) throw new Error(`addChannel: ${status} ${JSON.stringify(body)}`);
      return body;
    },
    async balance(keyId) {
      return (await admin("GET", `/admin/keys/${keyId}`)).body.balance;
    },
    ledger,
    async assertLedgerInvariant(keyId) {
      await settle();
      const entries = await ledger(keyId);
      const sum = entries.reduce((total, entry) => total + entry.amount, 0);
      const balance = (await admin("GET", `/admin/keys/${keyId}`)).body.balance;
      if (sum !== balance) {
        throw new Error(
          `Ledger invariant broken for ${keyId}: entries sum ${sum}, balance ${balance}`,
        );
      }
      return balance;
    },
    settle,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** Deno.test options for tests that hold a server open across steps. */
export const serverTest = { sanitizeOps: false, sanitizeResources: false };

/**
 * POSTs `body` to `path` on a gateway (a test gateway, a gateway process, or anything with its
 * `url`) and returns the raw Response. `key` goes as `authorization: Bearer …` (null: no key, e.g.
 * when `headers` carry `x-api-key` or `x-goog-api-key`); `headers` add to or replace the defaults.
 * Objects and arrays are sent as JSON; a string or a stream is sent as it is, as JSON, for
 * malformed or oversized bodies; a FormData goes as multipart/form-data.
 */
export function postJson(
  gw: { url: string },
  path: string,
  key: string | null,
  body: unknown,
  headers: Record<string, string> = {},
  init: Omit<RequestInit, "method" | "headers" | "body"> = {},
): Promise<Response> {
  const form = body instanceof FormData;
  const raw = form || typeof body === "string" || body instanceof ReadableStream;
  return fetch(`${gw.url}${path}`, {
    ...init,
    method: "POST",
    headers: {
      ...(key === null ? {} : { authorization: `Bearer ${key}` }),
      ...(form ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    body: raw ? body as BodyInit : JSON.stringify(body),
  });
}
