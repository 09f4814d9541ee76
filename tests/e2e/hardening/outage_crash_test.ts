/**
 * kill -9 during a store outage (docs/operations.md, "Store outages"): a gateway that served
 * requests from its lease while the store was down, its costs unwritten, dies. With the store
 * back and another instance up: Σ ledger = balance, and what was lost (answered costs never
 * charged) is at most one lease of the wallet; the dead instance's leases are returned once.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest } from "../../helpers/gateway.ts";
import { spawnGateway } from "../../helpers/gateway_process.ts";
import { remoteStoreTest } from "../../helpers/remote_store.ts";
import {
  adminCall,
  chat,
  eventually,
  makeKey,
  setUpTextModel,
} from "../../helpers/outage_setup.ts";
import { startOpenAIChatUpstream } from "../../upstream/openai_chat.ts";

const OPENING = 1_000_000;
const WORKERS = 8;

interface Entry {
  type: string;
  amount: number;
  ref: string;
  returned?: number;
  note?: string;
}

async function walletLedger(url: string, accountId: string): Promise<Entry[]> {
  const entries: Entry[] = [];
  let cursor = "";
  do {
    const page = await adminCall(
      url,
      "GET",
      `/admin/accounts/${accountId}/ledger?order=asc&limit=1000&cursor=${cursor}`,
    );
    assertEquals(page.status, 200, JSON.stringify(page.body));
    entries.push(...page.body.data);
    cursor = page.body.cursor ?? "";
  } while (cursor);
  return entries;
}

remoteStoreTest(
  "kill -9 in a store outage: at most one lease of costs lost, the ledger still sums",
  async (store) => {
    await using upstream = startOpenAIChatUpstream();
    const env = {
      ...store.env,
      GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
      GATEWAY_LOG_REQUESTS: "0",
      GATEWAY_STORE_DEADLINE_MS: "500",
      GATEWAY_INSTANCE_LEASE_MS: "1000",
    };
    const doomed = await spawnGateway(env);
    try {
      await setUpTextModel(doomed.url, upstream.baseUrl);
      const account = await adminCall(doomed.url, "POST", "/admin/accounts", {
        name: "crash",
        balance: OPENING,
      });
      const accountId: string = account.body.id;
      const { key } = await makeKey(doomed.url, { account_id: accountId });

      let answeredCost = 0;
      let answered = 0;
      let refused = 0;
      let stop = false;
      const worker = async () => {
        while (!stop) {
          const answer = await chat(doomed.url, key, { maxTokens: 10 }).catch(() => null);
          if (!answer) return; // the process is gone
          if (answer.status === 200) {
            answeredCost += answer.cost;
            answered++;
          } else {
            assertEquals(answer.body.error?.code, "store_unavailable", JSON.stringify(answer));
            refused++;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        }
      };
      const workers = Array.from({ length: WORKERS }, () => worker());
      await eventually("answers before the outage", () => answered >= 100);
      await store.stop();
      await eventually("the lease spent: refusals", () => refused > 0);
      doomed.child.kill("SIGKILL");
      await doomed.child.status;
      stop = true;
      await Promise.all(workers);

      await store.start();
      await using survivor = await spawnGateway(env);
      // The survivor's sweep returns each lease the dead instance held, once.
      const leaseRefs = (entries: Entry[]) =>
        new Set(entries.filter((entry) => entry.type === "lease").map((entry) => entry.ref));
      await eventually("the dead instance's leases returned", async () => {
        const entries = await walletLedger(survivor.url, accountId);
        const returned = entries.filter((entry) => entry.type === "lease_return");
        return returned.length === leaseRefs(entries).size;
      });
      const entries = await walletLedger(survivor.url, accountId);
      const returns = entries.filter((entry) => entry.type === "lease_return").map((e) => e.ref);
      assertEquals(new Set(returns).size, returns.length, "a lease returned twice");

      const verify = await adminCall(
        survivor.url,
        "GET",
        `/admin/accounts/${accountId}/ledger/verify`,
      );
      assertEquals(verify.body.ok, true, JSON.stringify(verify.body));
      const balance = (await adminCall(survivor.url, "GET", `/admin/accounts/${accountId}`)).body
        .balance;
      const charged = OPENING - balance;
      const lost = answeredCost - charged;
      // One lease: what the dead instance's lease held when the store stopped answering, which
      // is what the sweep returned (nothing of it was written in the outage).
      const swept = entries.filter((entry) =>
        entry.type === "lease_return" && /stopped renewing/.test(entry.note ?? "")
      );
      assertEquals(swept.length, 1, JSON.stringify(swept));
      const oneLease = swept[0].returned!;
      console.log(`answered ${answered}, lost ${lost} units, one lease ${oneLease} units`);
      assertOk(lost >= 0, `charged ${charged} for answers costing ${answeredCost}`);
      assertOk(lost <= oneLease, `lost ${lost} > one lease ${oneLease}`);
    } finally {
      try {
        doomed.child.kill("SIGKILL");
      } catch {
        // it is dead already
      }
      await doomed.child.status;
    }
  },
  serverTest,
);
