/**
 * The console's webhook pages over HTTP: New endpoint (secret shown once), Send test (verified
 * as a receiver would), a task's delivery on the endpoint and task pages, Redeliver with the
 * same webhook-id, Disable, edit, Rotate (new secret once, the old one in grace), delete, bad
 * forms answered 400 changing nothing, and every change audited without a secret.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest } from "../../helpers/gateway.ts";
import { consoleClient } from "../../helpers/console_client.ts";
import { startWebhookReceiver } from "../../helpers/webhook_receiver.ts";
import {
  eventually,
  setupWebhookImages,
  submitImageTask,
  verified,
  waitForImageTask,
} from "../../helpers/webhook_setup.ts";

const ALL_EVENTS = {
  "event:task.succeeded": "on",
  "event:task.failed": "on",
  "event:task.refunded": "on",
};

function secretOf(html: string): string | null {
  return html.match(/whsec_[A-Za-z0-9+/=]+/)?.[0] ?? null;
}

Deno.test(
  "console webhooks: create shows the secret once; test, task delivery, redeliver, disable, edit, rotate, delete; audited",
  serverTest,
  async () => {
    await using s = await setupWebhookImages();
    await using receiver = startWebhookReceiver();
    const client = consoleClient(s.gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();

    const empty = await client.get("/console/webhooks");
    const emptyHtml = await empty.text();
    assertEquals(empty.status, 200);
    assertOk(emptyHtml.includes("No webhook endpoint yet"), "an empty list says so");
    assertOk(emptyHtml.includes('href="/console/webhooks/new"'), "offers New endpoint");
    const form = await client.get("/console/webhooks/new");
    assertEquals(form.status, 200);
    assertOk(
      (await form.text()).includes('name="allow_task_callbacks"'),
      "the form has its fields",
    );

    const created = await client.post("/console/webhooks", {
      url: receiver.url,
      description: "ops hook",
      scope: "all",
      ...ALL_EVENTS,
    });
    await created.body?.cancel();
    assertEquals(created.status, 303);
    const secretPath = created.headers.get("location") ?? "";
    const id = secretPath.match(/^\/console\/webhooks\/([^/]+)\/secret$/)?.[1] ?? "";
    assertOk(id, `redirected to the secret page: ${secretPath}`);
    const secret = secretOf(await (await client.get(secretPath)).text());
    assertOk(secret, "the secret is shown on the first view");
    assertEquals(secretOf(await (await client.get(secretPath)).text()), null);
    const endpoint = (await s.gw.admin("GET", `/admin/webhooks/${id}`)).body;
    assertEquals(
      [endpoint.url, endpoint.description, endpoint.events.length, endpoint.key_id],
      [receiver.url, "ops hook", 3, null],
    );

    const test = await client.post(`/console/webhooks/${id}/test`, {});
    const testHtml = await test.text();
    assertEquals(test.status, 200);
    assertOk(testHtml.includes('role="status"') && testHtml.includes(">delivered<"), "delivered");
    const [ping] = await receiver.waitFor(1);
    assertEquals(verified(secret!, ping).type, "webhook.test");

    const taskId = await submitImageTask(s);
    await waitForImageTask(s, taskId);
    const [, pushed] = await receiver.waitFor(2);
    assertEquals(verified(secret!, pushed).type, "task.succeeded");
    const taskPage = await eventually(
      async () => await (await client.get(`/console/tasks/${taskId}`)).text(),
      (html) => html.includes(">succeeded<") && html.includes("task.succeeded"),
    );
    assertOk(taskPage.includes("Webhook deliveries"), "the task page lists its deliveries");
    const detail = await (await client.get(`/console/webhooks/${id}`)).text();
    assertOk(detail.includes(taskId) && detail.includes("webhook.test"), "deliveries listed");

    const deliveries = (await s.gw.admin("GET", `/admin/webhooks/${id}/deliveries`)).body.data;
    const taskDelivery = deliveries.find((d: { task_id: string }) => d.task_id === taskId);
    const again = await client.post(
      `/console/webhooks/${id}/deliveries/${taskDelivery.id}/redeliver`,
      {},
    );
    await again.body?.cancel();
    assertEquals(again.status, 200);
    const [, , redelivered] = await receiver.waitFor(3);
    assertEquals(redelivered.id, pushed.id);
    verified(secret!, redelivered);

    await (await client.post(`/console/webhooks/${id}/enabled`, { enabled: "false" })).body
      ?.cancel();
    assertEquals((await s.gw.admin("GET", `/admin/webhooks/${id}`)).body.enabled, false);
    const edit = await client.post(`/console/webhooks/${id}/edit`, {
      url: receiver.url,
      description: "failures only",
      scope: "group",
      group: "default",
      "event:task.failed": "on",
      allow_task_callbacks: "on",
    });
    await edit.body?.cancel();
    assertEquals(edit.status, 303);
    const edited = (await s.gw.admin("GET", `/admin/webhooks/${id}`)).body;
    assertEquals(
      [edited.description, edited.group, edited.events, edited.allow_task_callbacks],
      ["failures only", "default", ["task.failed"], true],
    );

    const rotated = await client.post(`/console/webhooks/${id}/rotate`, { grace_seconds: "3600" });
    await rotated.body?.cancel();
    assertEquals(rotated.headers.get("location"), `/console/webhooks/${id}/secret`);
    const newSecret = secretOf(await (await client.get(`/console/webhooks/${id}/secret`)).text());
    assertOk(newSecret && newSecret !== secret, "a new secret, shown once");
    assertOk(
      (await s.gw.admin("GET", `/admin/webhooks/${id}`)).body.previous_secret_expires_at,
      "the old secret is in grace",
    );

    const deleted = await client.post(`/console/webhooks/${id}/delete`, {});
    await deleted.body?.cancel();
    assertEquals(deleted.headers.get("location"), "/console/webhooks");
    assertEquals((await s.gw.admin("GET", `/admin/webhooks/${id}`)).status, 404);

    const audit = (await s.gw.admin("GET", `/admin/audit?target_id=${id}&actor=console`)).body.data;
    assertOk(audit.length >= 7, `every change is audited: ${audit.length}`);
    for (const record of audit) {
      assertOk(/^console:[0-9a-f]{16}$/.test(record.actor), record.actor);
      const text = JSON.stringify(record);
      assertOk(!text.includes(secret!) && !text.includes(newSecret!), "no secret in the audit");
      assertOk(!text.includes("sealed"), "no sealed secret in the audit");
    }
  },
);

Deno.test(
  "console webhooks: bad forms are answered 400 with the problem and change nothing",
  serverTest,
  async () => {
    await using s = await setupWebhookImages();
    const client = consoleClient(s.gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();

    const badUrl = await client.post("/console/webhooks", {
      url: "ftp://example.com/hook",
      scope: "all",
      ...ALL_EVENTS,
    });
    const badUrlHtml = await badUrl.text();
    assertEquals(badUrl.status, 400);
    assertOk(badUrlHtml.includes('role="alert"') && badUrlHtml.includes("http"), badUrlHtml);
    const noEvents = await client.post("/console/webhooks", {
      url: "https://example.com/hook",
      scope: "all",
    });
    await noEvents.body?.cancel();
    assertEquals(noEvents.status, 400);
    const badKey = await client.post("/console/webhooks", {
      url: "https://example.com/hook",
      scope: "key",
      key_id: "not-a-key",
      ...ALL_EVENTS,
    });
    await badKey.body?.cancel();
    assertEquals(badKey.status, 400);
    assertEquals((await s.gw.admin("GET", "/admin/webhooks")).body.data.length, 0);

    const missing = await client.get("/console/webhooks/whk_nothere");
    await missing.body?.cancel();
    assertEquals(missing.status, 404);
  },
);
