/**
 * kill -9 under load: a process answering requests from budget leases, its charges aggregated,
 * dies mid-stream of requests. Another instance on the same KV sweeps. Checked: every key's
 * entries sum to its balance; no request is charged twice; what is lost is at most the requests
 * answered after the dead process's last written flush; each of its leases is returned once.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, openStore, serverTest, TEST_TEXT_PRICE } from "../../helpers/gateway.ts";
import { type GatewayProcess, spawnGateway } from "../../helpers/gateway_process.ts";
import { startOpenAIChatUpstream } from "../../upstream/openai_chat.ts";

interface Entry {
  id: string;
  type: string;
  amount: number;
  ref: string;
  cost?: number;
  requests?: number;
  through?: string;
  instance?: string;
  note?: string;
}

const WORKERS = 24;
const ANSWERED_BEFORE_KILL = 400;

function admin(url: string, method: string, path: string, body?: unknown) {
  return fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then((response) => response.json());
}

async function ledgerOf(url: string, keyId: string): Promise<Entry[]> {
  return (await admin(url, "GET", `/admin/ledger?key=${keyId}&order=asc&limit=1000`)).data;
}

Deno.test(
  "killed under load: invariant holds, nothing charged twice, at most the last flush lost, leases returned once",
  serverTest,
  async () => {
    const upstream = startOpenAIChatUpstream();
    const dir = await Deno.makeTempDir();
    const env = {
      GATEWAY_KV: `${dir}/g.kv`,
      GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
      GATEWAY_INSTANCE_LEASE_MS: "1000",
      GATEWAY_LOG_REQUESTS: "0",
    };
    const doomed = await spawnGateway(env);
    let survivor: GatewayProcess | undefined;
    try {
      await admin(doomed.url, "PUT", "/admin/models/m", { kind: "text", price: TEST_TEXT_PRICE });
      await admin(doomed.url, "POST", "/admin/channels", {
        name: "sim",
        type: "openai",
        base_url: upstream.baseUrl,
        keys: ["sk-upstream-test"],
        models: ["m"],
      });
      const opening = 100_000_000;
      const keys: Array<{ id: string; key: string; unlimited: boolean }> = [];
      for (const unlimited of [false, false, true]) {
        const made = await admin(doomed.url, "POST", "/admin/keys", {
          name: "k",
          ...(unlimited ? { unlimited: true } : { balance: opening }),
        });
        keys.push({ id: made.id, key: made.key, unlimited });
      }

      // Each key's answers, with the client's clock when the whole answer was read.
      const answeredAt = new Map<string, number[]>(keys.map((key) => [key.id, []]));
      let answered = 0;
      let stop = false;
      let costOfOne = 0;
      const worker = async (index: number) => {
        const key = keys[index % keys.length];
        while (!stop) {
          try {
            const response = await fetch(`${doomed.url}/v1/chat/completions`, {
              method: "POST",
              headers: { authorization: `Bearer ${key.key}`, "content-type": "application/json" },
              body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "count" }] }),
            });
            const body = await response.json();
            if (response.status !== 200) throw new Error(JSON.stringify(body));
            const at = Date.now();
            costOfOne = (body.usage.prompt_tokens * TEST_TEXT_PRICE.input +
              body.usage.completion_tokens * TEST_TEXT_PRICE.output) / 1_000_000;
            answeredAt.get(key.id)!.push(at);
            answered++;
          } catch {
            return;
          }
        }
      };
      const workers = Array.from({ length: WORKERS }, (_, index) => worker(index));
      while (answered < ANSWERED_BEFORE_KILL) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      doomed.child.kill("SIGKILL");
      stop = true;
      await doomed.child.status;
      await Promise.all(workers);
      const killedAt = Date.now();
      survivor = await spawnGateway(env);
      assertOk(Number.isInteger(costOfOne) && costOfOne > 0, `cost ${costOfOne}`);

      // The survivor's orphaned-holds sweep returns the dead process's leases.
      const deadLeases = async () => {
        const refs: Array<{ keyId: string; ref: string }> = [];
        for (const key of keys) {
          for (const entry of await ledgerOf(survivor!.url, key.id)) {
            if (entry.type === "lease") refs.push({ keyId: key.id, ref: entry.ref });
          }
        }
        return refs;
      };
      const leased = await deadLeases();
      const uniqueLeases = new Set(leased.map((lease) => `${lease.keyId}/${lease.ref}`));
      assertOk(uniqueLeases.size >= 2, `the limited keys leased: ${[...uniqueLeases]}`);
      const returnsOf = async () => {
        let returns = 0;
        for (const key of keys) {
          returns += (await ledgerOf(survivor!.url, key.id))
            .filter((entry) => entry.type === "lease_return").length;
        }
        return returns;
      };
      while (Date.now() - killedAt < 15_000 && await returnsOf() < uniqueLeases.size) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // More sweeps return nothing more.
      await new Promise((resolve) => setTimeout(resolve, 1_200));

      let lostTotal = 0;
      for (const key of keys) {
        const entries = await ledgerOf(survivor.url, key.id);
        const verify = await admin(survivor.url, "GET", `/admin/keys/${key.id}/ledger/verify`);
        assertEquals(verify.ok, true, JSON.stringify(verify));
        const charges = entries.filter((entry) => entry.type === "charge");
        const charged = charges.reduce((sum, entry) => sum + entry.requests!, 0);
        // No request twice: each entry's cost is its requests' costs, and no more requests are
        // charged than reached the upstream with this key's requests.
        for (const charge of charges) {
          assertEquals(charge.cost, charge.requests! * costOfOne, JSON.stringify(charge));
          assertEquals(charge.amount, -charge.cost!);
        }
        const times = answeredAt.get(key.id)!;
        assertOk(charged <= times.length + WORKERS, `charged ${charged} of ${times.length}`);
        // Lost: answered and never charged; every such request's cost was added after the last
        // written flush began, so it was answered after that flush's `through`.
        const lastThrough = Date.parse(charges.at(-1)?.through ?? "1970-01-01T00:00:00Z");
        const answeredAfter = times.filter((at) => at >= lastThrough).length;
        const lost = times.length - charged;
        assertOk(
          lost <= answeredAfter,
          `lost ${lost}, answered after the last flush ${answeredAfter}`,
        );
        lostTotal += Math.max(0, lost);
        if (!key.unlimited) {
          assertEquals(verify.balance, opening - charged * costOfOne);
          const leases = entries.filter((entry) => entry.type === "lease");
          const returns = entries.filter((entry) => entry.type === "lease_return");
          assertEquals(new Set(returns.map((entry) => entry.ref)).size, returns.length);
          assertEquals(
            [...new Set(leases.map((entry) => entry.ref))].sort(),
            returns.map((entry) => entry.ref).sort(),
            "each lease returned, once",
          );
          assertOk(returns.every((entry) => entry.note?.includes("the process died")));
        }
      }
      using kv = await openStore(env.GATEWAY_KV);
      const open = await Array.fromAsync(kv.list({ prefix: ["budget_leases"] }));
      assertEquals(open.length, 0, "no lease left open");
      // The survivor serves the keys: a new lease is taken from the balance left.
      const after = await fetch(`${survivor.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${keys[0].key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "count" }] }),
      });
      assertEquals(after.status, 200);
      await after.body?.cancel();
      console.log(`killed under load: ${answered} answered, ${lostTotal} lost`);
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
