/**
 * Two gateway processes on one KV file: SQLite's "database is locked" is a passing conflict for
 * admin writes too, retried like client writes, never a 500.
 */

import { assertEquals } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest } from "../../helpers/gateway.ts";
import { spawnGateway } from "../../helpers/gateway_process.ts";
import { tempDir } from "../../helpers/temp_dir.ts";

const ROUNDS = 30;
const WORKERS_PER_PROCESS = 3;

Deno.test(
  "admin writes: concurrent key creates and patches from two processes on one KV file, no 500",
  serverTest,
  async () => {
    await using dir = await tempDir();
    const env = {
      GATEWAY_KV: `${dir.path}/g.kv`,
      GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
      GATEWAY_LOG_REQUESTS: "0",
    };
    await using first = await spawnGateway(env);
    await using second = await spawnGateway(env);
    const admin = (url: string, method: string, path: string, body?: unknown) =>
      fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const statuses = new Map<string, number[]>();
    const note = (what: string, status: number) => {
      statuses.set(what, [...(statuses.get(what) ?? []), status]);
    };
    const worker = async (url: string, name: string) => {
      for (let i = 0; i < ROUNDS; i++) {
        const created = await admin(url, "POST", "/admin/keys", { name: `${name}-${i}` });
        note("POST", created.status);
        const body = await created.json();
        if (created.status !== 201) continue;
        const patched = await admin(url, "PATCH", `/admin/keys/${body.id}`, { rpm: i + 1 });
        note("PATCH", patched.status);
        await patched.body?.cancel();
      }
    };
    const workers = [];
    for (let w = 0; w < WORKERS_PER_PROCESS; w++) {
      workers.push(worker(first.url, `a${w}`), worker(second.url, `b${w}`));
    }
    await Promise.all(workers);
    const total = ROUNDS * WORKERS_PER_PROCESS * 2;
    const count = (what: string, status: number) =>
      (statuses.get(what) ?? []).filter((s) => s === status).length;
    assertEquals(
      { created: count("POST", 201), patched: count("PATCH", 200) },
      { created: total, patched: total },
      `statuses: ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
    const listed = await admin(first.url, "GET", "/admin/keys?limit=500").then((r) => r.json());
    assertEquals(listed.data.length, total);
  },
);
