/**
 * A process killed with requests in flight leaves holds that another instance releases, once.
 * Requests hold in the ledger on keys with spend caps (others spend from a budget lease: see
 * killed_under_load_test.ts), so the key here has one.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest, TEST_TEXT_PRICE } from "../../helpers/gateway.ts";
import { spawnGateway } from "../../helpers/gateway_process.ts";
import { startOpenAIChatUpstream } from "../../upstream/openai_chat.ts";

Deno.test(
  "killed process: holds of its in-flight requests are released by another instance within 1.5 leases, exactly once",
  serverTest,
  async () => {
    const upstream = startOpenAIChatUpstream();
    upstream.fault = { kind: "hang" };
    const dir = await Deno.makeTempDir();
    const env = {
      GATEWAY_KV: `${dir}/g.kv`,
      GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
      GATEWAY_INSTANCE_LEASE_MS: "1000",
      GATEWAY_LOG_REQUESTS: "0",
    };
    const doomed = await spawnGateway(env);
    let survivor: Awaited<ReturnType<typeof spawnGateway>> | undefined;
    try {
      const admin = (url: string, method: string, path: string, body?: unknown) =>
        fetch(`${url}${path}`, {
          method,
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        }).then((response) => response.json());
      await admin(doomed.url, "PUT", "/admin/models/m", { kind: "text", price: TEST_TEXT_PRICE });
      await admin(doomed.url, "POST", "/admin/channels", {
        name: "hangs",
        type: "openai",
        base_url: upstream.baseUrl,
        keys: ["sk-upstream-test"],
        models: ["m"],
      });
      const { id: keyId, key } = await admin(doomed.url, "POST", "/admin/keys", {
        name: "k",
        balance: 1_000_000,
        spend_limits: { month: 1_000_000 },
      });
      const inFlight = Array.from({ length: 3 }, () =>
        fetch(`${doomed.url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hang" }] }),
        }).then((response) => response.body?.cancel(), () => {}));
      for (let i = 0; i < 200 && upstream.requests.length < 3; i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      assertEquals(upstream.requests.length, 3, "three requests hold money upstream");

      doomed.child.kill("SIGKILL");
      await doomed.child.status;
      await Promise.all(inFlight);
      const killedAt = Date.now();
      survivor = await spawnGateway(env);

      let entries: Array<{ type: string; amount: number; note?: string }> = [];
      while (Date.now() - killedAt < 10_000) {
        entries = (await admin(survivor.url, "GET", `/admin/ledger?key=${keyId}&order=asc`)).data;
        if (entries.filter((entry) => entry.type === "release").length === 3) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const releasedAfterMs = Date.now() - killedAt;
      const releases = entries.filter((entry) => entry.type === "release");
      assertEquals(releases.length, 3, JSON.stringify(entries));
      assertOk(releases.every((entry) => entry.note?.includes("the process died")));
      assertOk(releasedAfterMs < 1_500 + 1_500, `released after ${releasedAfterMs} ms`);
      // More sweeps (this instance's, and a restart's) release nothing more.
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      const after = (await admin(survivor.url, "GET", `/admin/ledger?key=${keyId}&order=asc`)).data;
      assertEquals(after.length, entries.length);
      const balance = (await admin(survivor.url, "GET", `/admin/keys/${keyId}`)).balance;
      assertEquals(balance, 1_000_000);
    } finally {
      try {
        doomed.child.kill("SIGKILL");
      } catch {
        // already killed by the test
      }
      await doomed.child.status;
      if (survivor) {
        survivor.child.kill("SIGTERM");
        await survivor.child.status;
      }
      await upstream.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
);
