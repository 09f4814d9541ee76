/**
 * Task webhooks end to end: a real gateway, a real receiver on 127.0.0.1, every delivery
 * verified with the `standardwebhooks` package as a receiver would.
 */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import { IMAGE_PRICE } from "../helpers/image_setup.ts";
import { startWebhookReceiver } from "../helpers/webhook_receiver.ts";
import {
  createEndpoint,
  eventually,
  setupWebhookImages,
  submitImageTask,
  verified,
  waitForImageTask,
} from "../helpers/webhook_setup.ts";

Deno.test(
  "webhooks: a succeeded task is pushed, signed, with the status route's view plus billing",
  serverTest,
  async () => {
    await using receiver = startWebhookReceiver();
    await using s = await setupWebhookImages();
    const endpoint = await createEndpoint(s, { url: receiver.url });
    const taskId = await submitImageTask(s, { prompt: "a kite", n: 2 });
    const view = await waitForImageTask(s, taskId);
    const [received] = await receiver.waitFor(1);
    const payload = verified(endpoint.secret, received);
    assertEquals(payload.type, "task.succeeded");
    assertOk(/^msg_/.test(received.id));
    const { kind, billing, result_links, ...data } = payload.data;
    assertEquals(data, view, "data is the task exactly as the status route shows it");
    assertEquals(kind, "image");
    const admin = (await s.gw.admin("GET", `/admin/tasks/${taskId}`)).body;
    assertEquals(billing, {
      held: 2 * IMAGE_PRICE.per_image,
      billed: 2 * IMAGE_PRICE.per_image,
      refunded: 0,
      ledger_entry_ids: admin.billing.entry_ids,
    });
    assertEquals(result_links.length, 2);
    for (const [index, link] of result_links.entries()) {
      assertEquals(link.url, (view.image_urls as string[])[index]);
      assertEquals(link.hosted, true);
      assertOk(Date.parse(link.expires_at) > Date.now(), link.expires_at);
    }
    const deliveries = await eventually(
      async () => (await s.gw.admin("GET", `/admin/tasks/${taskId}/deliveries`)).body.data,
      (data) => data[0]?.status === "succeeded",
    );
    assertEquals(deliveries.length, 1);
    assertEquals(deliveries[0].webhook_id, received.id);
    assertEquals(deliveries[0].endpoint_id, endpoint.id);
    assertEquals(deliveries[0].event, "task.succeeded");
    assertEquals(deliveries[0].attempts.length, 1);
    assertEquals(deliveries[0].attempts[0].status_code, 200);
    assertEquals(deliveries[0].next_attempt_at, null);
    assertEquals(deliveries[0].payload, payload);
    const ofEndpoint = (await s.gw.admin("GET", `/admin/webhooks/${endpoint.id}/deliveries`)).body;
    assertEquals(ofEndpoint.data.map((d: { id: string }) => d.id), [deliveries[0].id]);
    const metrics = await (await fetch(`${s.gw.url}/metrics`)).text();
    assertOk(metrics.includes('gateway_webhook_attempts_total{outcome="succeeded"} 1'), metrics);
  },
);

Deno.test(
  "webhooks: a failed task sends task.failed then task.refunded, each its own webhook-id",
  serverTest,
  async () => {
    await using receiver = startWebhookReceiver();
    await using s = await setupWebhookImages();
    const endpoint = await createEndpoint(s, { url: receiver.url });
    const only = await createEndpoint(s, {
      url: `${receiver.url}?only`,
      events: ["task.refunded"],
    });
    s.openai!.fault = { kind: "status", status: 400, message: "Your prompt was rejected" };
    const taskId = await submitImageTask(s);
    const view = await waitForImageTask(s, taskId);
    assertEquals(view.status, "failed");
    const received = await receiver.waitFor(3);
    const payloads = received.map((r) => {
      try {
        return verified(endpoint.secret, r);
      } catch {
        return { only: verified(only.secret, r) };
      }
    });
    const toFirst = payloads.filter((p) => !p.only).map((p) => p.type).sort();
    assertEquals(toFirst, ["task.failed", "task.refunded"]);
    assertEquals(payloads.filter((p) => p.only).map((p) => p.only.type), ["task.refunded"]);
    const refunded = payloads.find((p) => p.type === "task.refunded");
    assertEquals(refunded.data.billing.refunded, IMAGE_PRICE.per_image);
    assertEquals(refunded.data.billing.billed, 0);
    assertEquals(refunded.data.fail_reason, view.fail_reason);
    assertEquals(new Set(received.map((r) => r.id)).size, 3, "each delivery its own webhook-id");
  },
);

Deno.test(
  "webhooks: receiver down then up — retried with the same webhook-id, then never again",
  serverTest,
  async () => {
    await using receiver = startWebhookReceiver({ kind: "status", status: 500 });
    await using s = await setupWebhookImages();
    const endpoint = await createEndpoint(s, { url: receiver.url });
    const taskId = await submitImageTask(s);
    await waitForImageTask(s, taskId);
    await receiver.waitFor(2);
    receiver.mode = { kind: "ok" };
    const deliveries = await eventually(
      async () => (await s.gw.admin("GET", `/admin/tasks/${taskId}/deliveries`)).body.data,
      (data) => data[0]?.status === "succeeded",
    );
    const [delivery] = deliveries;
    assertEquals(delivery.status, "succeeded");
    const attempts = delivery.attempts;
    assertOk(attempts.length >= 3, JSON.stringify(attempts));
    for (const attempt of attempts.slice(0, -1)) {
      assertEquals(attempt.status_code, 500);
      assertEquals(attempt.error, "answered 500");
    }
    assertEquals(attempts.at(-1).status_code, 200);
    assertEquals(
      attempts.map((a: { n: number }) => a.n),
      attempts.map((_: unknown, i: number) => i + 1),
    );
    assertEquals(receiver.received.length, attempts.length, "one request per attempt");
    assertEquals(new Set(receiver.received.map((r) => r.id)), new Set([delivery.webhook_id]));
    for (const request of receiver.received) verified(endpoint.secret, request);
    // After success it is never sent again: more polls pass and nothing arrives.
    const count = receiver.received.length;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    assertEquals(receiver.received.length, count);
  },
);

Deno.test(
  "webhooks: a task is unaffected by a receiver that fails forever (status, result, money)",
  serverTest,
  async () => {
    await using receiver = startWebhookReceiver({ kind: "status", status: 500 });
    await using s = await setupWebhookImages({
      env: { GATEWAY_WEBHOOK_MAX_ATTEMPTS: "3", GATEWAY_WEBHOOK_RETRY_BASE_MS: "50" },
    });
    const opening = await s.gw.balance(s.keyId);
    await createEndpoint(s, { url: receiver.url });
    const taskId = await submitImageTask(s, { prompt: "a kite", n: 1 });
    const view = await waitForImageTask(s, taskId);
    assertEquals(view.status, "succeeded");
    assertEquals((view.image_urls as string[]).length, 1);
    const deliveries = await eventually(
      async () => (await s.gw.admin("GET", `/admin/tasks/${taskId}/deliveries`)).body.data,
      (data) => data[0]?.status === "failed",
    );
    assertEquals(deliveries[0].status, "failed");
    assertEquals(deliveries[0].attempts.length, 3, "bounded by GATEWAY_WEBHOOK_MAX_ATTEMPTS");
    assertEquals(deliveries[0].next_attempt_at, null);
    const task = (await s.gw.admin("GET", `/admin/tasks/${taskId}`)).body;
    assertEquals(task.status, "succeeded");
    assertEquals(task.billing.settled, IMAGE_PRICE.per_image);
    assertEquals(task.billing.refunded, 0);
    assertEquals(await s.gw.assertLedgerInvariant(s.keyId), opening - IMAGE_PRICE.per_image);
    const entries = await s.gw.ledger(s.keyId);
    assertEquals(entries.filter((entry) => entry.ref === taskId).map((e) => e.type), [
      "hold",
      "settle",
    ]);
  },
);

Deno.test(
  "webhooks: a hanging receiver does not delay another endpoint's delivery",
  serverTest,
  async () => {
    await using slow = startWebhookReceiver({ kind: "hang" });
    await using fast = startWebhookReceiver();
    await using s = await setupWebhookImages({ env: { GATEWAY_WEBHOOK_TIMEOUT_MS: "60000" } });
    await createEndpoint(s, { url: slow.url });
    const endpoint = await createEndpoint(s, { url: fast.url });
    const taskId = await submitImageTask(s);
    await waitForImageTask(s, taskId);
    await slow.waitFor(1);
    const [received] = await fast.waitFor(1);
    assertEquals(verified(endpoint.secret, received).type, "task.succeeded");
    const deliveries = (await s.gw.admin("GET", `/admin/tasks/${taskId}/deliveries`)).body.data;
    const statuses = deliveries.map((d: { status: string }) => d.status).sort();
    assertEquals(statuses, ["pending", "succeeded"], "the slow one still hangs");
    // A second task is not held up either.
    const second = await submitImageTask(s);
    assertEquals((await waitForImageTask(s, second)).status, "succeeded");
    await fast.waitFor(2);
    await slow.close();
  },
);

Deno.test(
  "webhooks: rotation grace — two signatures that both verify, then only the new one",
  serverTest,
  async () => {
    await using receiver = startWebhookReceiver();
    await using s = await setupWebhookImages();
    const endpoint = await createEndpoint(s, { url: receiver.url });
    const rotated = await s.gw.admin("POST", `/admin/webhooks/${endpoint.id}/rotate`, {
      grace_seconds: 3600,
    });
    assertEquals(rotated.status, 200);
    const newSecret = rotated.body.secret as string;
    assertOk(newSecret.startsWith("whsec_") && newSecret !== endpoint.secret);
    assertOk(Date.parse(rotated.body.previous_secret_expires_at) > Date.now());
    const test = await s.gw.admin("POST", `/admin/webhooks/${endpoint.id}/test`);
    assertEquals(test.status, 200, JSON.stringify(test.body));
    assertEquals(test.body.status, "succeeded");
    assertEquals(test.body.event, "webhook.test");
    assertEquals(test.body.attempts[0].status_code, 200);
    const [inGrace] = await receiver.waitFor(1);
    assertEquals(inGrace.signature.split(" ").length, 2);
    assertEquals(verified(endpoint.secret, inGrace).type, "webhook.test");
    assertEquals(verified(newSecret, inGrace).type, "webhook.test");

    const atOnce = await s.gw.admin("POST", `/admin/webhooks/${endpoint.id}/rotate`, {
      grace_seconds: 0,
    });
    const latest = atOnce.body.secret as string;
    assertEquals(atOnce.body.previous_secret_expires_at, null);
    await s.gw.admin("POST", `/admin/webhooks/${endpoint.id}/test`);
    const [, after] = await receiver.waitFor(2);
    assertEquals(after.signature.split(" ").length, 1);
    assertEquals(verified(latest, after).type, "webhook.test");
    let oldVerifies = true;
    try {
      verified(newSecret, after);
    } catch {
      oldVerifies = false;
    }
    assertEquals(oldVerifies, false, "the replaced secret no longer signs");
  },
);

Deno.test(
  "webhooks: Redeliver sends one more attempt now with the same webhook-id",
  serverTest,
  async () => {
    await using receiver = startWebhookReceiver();
    await using s = await setupWebhookImages();
    const endpoint = await createEndpoint(s, { url: receiver.url });
    const taskId = await submitImageTask(s);
    await waitForImageTask(s, taskId);
    const [first] = await receiver.waitFor(1);
    const [delivery] = await eventually(
      async () => (await s.gw.admin("GET", `/admin/tasks/${taskId}/deliveries`)).body.data,
      (data) => data[0]?.status === "succeeded",
    );
    const again = await s.gw.admin(
      "POST",
      `/admin/webhooks/${endpoint.id}/deliveries/${delivery.id}/redeliver`,
    );
    assertEquals(again.status, 200, JSON.stringify(again.body));
    assertEquals(again.body.attempts.length, 2);
    assertEquals(again.body.status, "succeeded");
    const [, second] = await receiver.waitFor(2);
    assertEquals(second.id, first.id);
    assertEquals(second.body, first.body);
    verified(endpoint.secret, second);
    const missing = await s.gw.admin(
      "POST",
      `/admin/webhooks/${endpoint.id}/deliveries/whd_nope/redeliver`,
    );
    assertEquals([missing.status, missing.body.error.code], [404, "delivery_not_found"]);
  },
);
