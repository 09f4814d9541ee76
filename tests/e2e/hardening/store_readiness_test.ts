/**
 * A gateway on a remote store that stops answering: /healthz stays 200 (liveness), /readyz turns
 * 503 once a probe read and write miss the store's deadline, and admin reads answer 503
 * `store_unavailable` in the admin envelope instead of hanging. With the store back (same data,
 * same address), /readyz is 200 again and the reads answer.
 */

import { assertEquals } from "../../helpers/assert.ts";
import { assertAdminError } from "../../helpers/admin_error.ts";
import { ADMIN_TOKEN, serverTest } from "../../helpers/gateway.ts";
import { spawnGateway } from "../../helpers/gateway_process.ts";
import { remoteStoreTest } from "../../helpers/remote_store.ts";

async function get(url: string, path: string) {
  const response = await fetch(`${url}${path}`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

async function send(url: string, method: string, path: string, body: unknown) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** Polls `path` until it answers `status` (the store's state changes outside the test's clock). */
async function until(url: string, path: string, status: number) {
  for (let tries = 0;; tries++) {
    const answer = await get(url, path);
    if (answer.status === status) return answer;
    if (tries > 600) throw new Error(`${path} still answers ${JSON.stringify(answer)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

remoteStoreTest(
  "store outage: /readyz 503 and admin reads 503 store_unavailable; both recover with the store",
  async (store) => {
    await using gateway = await spawnGateway({
      ...store.env,
      GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
      GATEWAY_LOG_REQUESTS: "0",
      GATEWAY_STORE_DEADLINE_MS: "500",
    });
    const made = await fetch(`${gateway.url}/admin/keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "k", balance: 1000 }),
    }).then((response) => response.json());
    assertEquals((await get(gateway.url, "/readyz")).body, { status: "ready" });
    assertEquals((await get(gateway.url, "/healthz")).status, 200);

    await store.stop();
    const notReady = await until(gateway.url, "/readyz", 503);
    assertEquals(notReady.body.status, "store_unavailable");
    assertEquals((await get(gateway.url, "/healthz")).body, { status: "ok" });
    for (const path of ["/admin/keys", `/admin/keys/${made.id}`, `/admin/ledger?key=${made.id}`]) {
      assertAdminError(await get(gateway.url, path), 503, "store_unavailable");
    }
    // Writes, money included, answer 503 too rather than hang.
    const writes: Array<[string, string, unknown]> = [
      ["PATCH", `/admin/keys/${made.id}`, { name: "renamed" }],
      ["POST", `/admin/keys/${made.id}/credit`, { amount: 5 }],
    ];
    for (const [method, path, body] of writes) {
      assertAdminError(await send(gateway.url, method, path, body), 503, "store_unavailable");
    }

    await store.start();
    await until(gateway.url, "/readyz", 200);
    await until(gateway.url, `/admin/keys/${made.id}`, 200);
    const verify = await get(gateway.url, `/admin/keys/${made.id}/ledger/verify`);
    assertEquals(verify.body.ok, true, JSON.stringify(verify.body));
  },
  serverTest,
);
