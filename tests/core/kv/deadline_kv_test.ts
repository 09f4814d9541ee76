/**
 * deadlineKv on a remote store whose server is killed: reads and raced writes fail with 503
 * `store_unavailable` at the deadline and the health says unreachable; a commit left to finish
 * (`commits: "wait"`) lands once when the server is back on the same file, and the health says
 * reachable again. And the KV conformance suite through deadlineKv.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { deadlineKv } from "../../../core/kv/deadline_kv.ts";
import { StoreHealth } from "../../../core/kv/store_health.ts";
import { GatewayError } from "../../../core/errors.ts";
import { remoteStoreTest } from "../../helpers/remote_store.ts";
import { openStore } from "../../helpers/gateway.ts";
import { runKvConformance } from "./kv_conformance.ts";

async function refusal(work: Promise<unknown>): Promise<GatewayError> {
  try {
    await work;
  } catch (error) {
    assertOk(error instanceof GatewayError, String(error));
    return error;
  }
  throw new Error("the call did not fail");
}

remoteStoreTest(
  "deadlineKv: reads and raced writes 503 at the deadline; a waited commit lands once",
  async (store) => {
    // The same token when one was set (see remoteStoreTest's inProcess).
    const token = store.env.DENO_KV_ACCESS_TOKEN;
    if (token) Deno.env.set("DENO_KV_ACCESS_TOKEN", token);
    const raw = await openStore(store.env.GATEWAY_KV);
    try {
      const health = new StoreHealth();
      const raced = deadlineKv(raw, { deadlineMs: 300, health });
      const waiting = deadlineKv(raw, { deadlineMs: 300, health, commits: "wait" });
      await raced.set(["n"], new Deno.KvU64(0n));
      assertOk(health.reachable);

      await store.stop();
      for (
        const call of [raced.get(["n"]), raced.set(["x"], 1), raced.list({ prefix: [] }).next()]
      ) {
        const error = await refusal(call);
        assertEquals([error.status, error.code], [503, "store_unavailable"]);
      }
      assertEquals(health.reachable, false);
      const landing = waiting.atomic().sum(["n"], 1n).commit();
      // Past its deadline it is still waiting, not refused.
      const state = await Promise.race([
        landing.then(() => "ended", () => "failed"),
        new Promise((resolve) => setTimeout(() => resolve("waiting"), 600)),
      ]);
      assertEquals(state, "waiting");

      await store.start();
      assertEquals((await landing).ok, true);
      assertOk(health.reachable);
      assertEquals((await raced.get<Deno.KvU64>(["n"])).value?.value, 1n);
    } finally {
      raw.close();
    }
  },
  { sanitizeOps: false, sanitizeResources: false, inProcess: true },
);

// The deadline changes nothing of what a store does while it answers: the conformance suite,
// through deadlineKv (raced and waited commits) over the embedded KV.
for (const commits of ["deadline", "wait"] as const) {
  runKvConformance(
    `deadlineKv (${commits}) over :memory:`,
    async () =>
      deadlineKv(await Deno.openKv(":memory:"), {
        deadlineMs: 10_000,
        health: new StoreHealth(),
        commits,
      }),
    { queues: true },
  );
}
