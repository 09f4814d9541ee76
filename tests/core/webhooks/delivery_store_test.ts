/** The delivery store's leases: what a sender holds, no other sender takes. */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { kvKeys } from "../../../core/kv/kv_keys.ts";
import { DeliveryStore, type NewDelivery } from "../../../core/webhooks/delivery_store.ts";

const testDelivery: NewDelivery = {
  endpoint_id: "whe_test",
  callback_url: null,
  task_id: null,
  event: "webhook.test",
  body: "{}",
  webhook_id: "msg_test",
  retries: false,
};

Deno.test("createClaimed(): a Send test delivery is leased from its first write; no worker claims it, not even when due-listed", async () => {
  using kv = await Deno.openKv(":memory:");
  const store = new DeliveryStore(kv);
  const claimed = await store.createClaimed(testDelivery, 60_000);
  assertEquals(claimed.value.status, "pending");
  assertOk(claimed.value.leased_until! > Date.now(), "leased");
  // Nothing is due before the lease runs out.
  const due = [];
  for await (const entry of store.due(10)) due.push(entry);
  assertEquals(due, []);
  // Neither a due claim nor a Send-now claim takes it while the lease holds.
  const dueKey = kvKeys.webhookDue(claimed.value.next_attempt_at!, claimed.value.id);
  assertEquals(
    await store.claim(claimed.value.id, {
      leaseMs: 1_000,
      due: { deliveryId: claimed.value.id, dueKey: dueKey as unknown as Deno.KvKey },
    }),
    null,
  );
  assertEquals(await store.claim(claimed.value.id, { leaseMs: 1_000, now: true }), null);
  // Its one attempt is recorded under that lease.
  const after = await store.record(claimed, {
    attempt: { n: 1, at: new Date().toISOString(), latency_ms: 1, status_code: 204 },
    status: "succeeded",
    nextAt: null,
  });
  assertEquals([after?.status, after?.attempts.length, after?.leased_until], [
    "succeeded",
    1,
    null,
  ]);
});

Deno.test("createClaimed(): when the sender dies mid-attempt the delivery comes due as its lease runs out", async () => {
  using kv = await Deno.openKv(":memory:");
  const store = new DeliveryStore(kv);
  const claimed = await store.createClaimed(testDelivery, 1);
  await new Promise((resolve) => setTimeout(resolve, 5));
  const due = [];
  for await (const entry of store.due(10)) due.push(entry);
  assertEquals(due.map((entry) => entry.deliveryId), [claimed.value.id]);
  const taken = await store.claim(claimed.value.id, { leaseMs: 60_000, due: due[0] });
  assertEquals(taken?.value.id, claimed.value.id);
});
