/**
 * The webhook admin API: endpoints created, read, changed, deleted; the secret shown only on
 * create and rotate and never stored in clear (KV, logs, audit); the SSRF guard at creation;
 * config-file endpoints.
 */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest, startTestGateway } from "../helpers/gateway.ts";
import { tempDir } from "../helpers/temp_dir.ts";
import { startWebhookReceiver } from "../helpers/webhook_receiver.ts";
import { verified, WEBHOOK_TEST_ENV } from "../helpers/webhook_setup.ts";

const PUBLIC_URL = "https://hooks.example.com/gateway";

Deno.test(
  "admin webhooks: create shows the secret once; GET, list, PATCH of the fields sent, DELETE",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const key = await gw.createKey({ group: "team" });
    const created = await gw.admin("POST", "/admin/webhooks", {
      url: PUBLIC_URL,
      key_id: key.id,
      description: "billing system",
    });
    assertEquals(created.status, 201, JSON.stringify(created.body));
    const { id, secret, ...view } = created.body;
    assertOk(/^whsec_[A-Za-z0-9+/]{43}=$/.test(secret));
    assertEquals(view.events, ["task.succeeded", "task.failed", "task.refunded"]);
    assertEquals([view.key_id, view.group, view.enabled], [key.id, null, true]);
    assertEquals(view.allow_task_callbacks, false);
    assertEquals(view.source, "admin");

    const read = (await gw.admin("GET", `/admin/webhooks/${id}`)).body;
    assertEquals(read, { id, ...view });
    assertOk(!JSON.stringify(read).includes("whsec_"));
    const list = (await gw.admin("GET", "/admin/webhooks")).body;
    assertEquals(list.data.map((e: { id: string }) => e.id), [id]);
    assertOk(!JSON.stringify(list).includes("whsec_"));

    const patched = await gw.admin("PATCH", `/admin/webhooks/${id}`, {
      events: ["task.failed"],
      enabled: false,
    });
    assertEquals(patched.status, 200);
    assertEquals(patched.body.events, ["task.failed"]);
    assertEquals(patched.body.enabled, false);
    assertEquals([patched.body.url, patched.body.key_id, patched.body.description], [
      PUBLIC_URL,
      key.id,
      "billing system",
    ]);
    const both = await gw.admin("PATCH", `/admin/webhooks/${id}`, { group: "team" });
    assertEquals([both.status, both.body.error.code], [400, "invalid_request"]);
    const moved = await gw.admin("PATCH", `/admin/webhooks/${id}`, { group: "team", key_id: null });
    assertEquals([moved.body.group, moved.body.key_id], ["team", null]);

    assertEquals((await gw.admin("DELETE", `/admin/webhooks/${id}`)).status, 204);
    const gone = await gw.admin("GET", `/admin/webhooks/${id}`);
    assertEquals([gone.status, gone.body.error.code], [404, "webhook_not_found"]);
  },
);

Deno.test("admin webhooks: bad input is a 400 naming the field", serverTest, async () => {
  await using gw = await startTestGateway();
  const cases: Array<[unknown, string, string | null]> = [
    [{}, "invalid_request", "url"],
    [{ url: PUBLIC_URL, events: ["task.started"] }, "invalid_request", "events.0"],
    [{ url: PUBLIC_URL, events: [] }, "invalid_request", "events"],
    [{ url: PUBLIC_URL, key_id: "key_a", group: "g" }, "invalid_request", "group"],
    [{ url: PUBLIC_URL, key_id: "nope" }, "invalid_request", "key_id"],
    [{ url: PUBLIC_URL, key_id: "key_doesnotexist" }, "key_not_found", "key_id"],
    [{ url: PUBLIC_URL, secret: "whsec_mine" }, "invalid_request", "secret"],
    [{ url: "ftp://example.com/x" }, "invalid_webhook_url", "url"],
    [{ url: "http://127.0.0.1:9/hook" }, "invalid_webhook_url", "url"],
    [{ url: "http://localhost/hook" }, "invalid_webhook_url", "url"],
    [{ url: "http://169.254.169.254/latest" }, "invalid_webhook_url", "url"],
    [{ url: "http://[::ffff:10.0.0.1]/" }, "invalid_webhook_url", "url"],
  ];
  for (const [body, code, param] of cases) {
    const answer = await gw.admin("POST", "/admin/webhooks", body);
    assertEquals(answer.status, 400, JSON.stringify(body));
    assertEquals(
      [answer.body.error.code, answer.body.error.param],
      [code, param],
      JSON.stringify(answer.body),
    );
  }
  const loopback = await gw.admin("POST", "/admin/webhooks", { url: "http://127.0.0.1:9/hook" });
  assertOk(loopback.body.error.message.includes("GATEWAY_WEBHOOK_ALLOW_PRIVATE"));
  assertEquals((await gw.admin("GET", "/admin/webhooks")).body.data, []);
  const odd = await gw.admin("GET", "/admin/webhooks/a%20b");
  assertEquals([odd.status, odd.body.error.code], [404, "webhook_not_found"]);
  const rotate = await gw.admin("POST", "/admin/webhooks/whk_none/rotate", { grace_seconds: -1 });
  assertEquals(rotate.status, 400);
});

Deno.test(
  "admin webhooks: the secret is never in KV in clear, in the logs or in audit records",
  serverTest,
  async () => {
    await using receiver = startWebhookReceiver();
    const printed: string[] = [];
    const log = console.log;
    const error = console.error;
    console.log = (...args: unknown[]) => printed.push(args.map(String).join(" "));
    console.error = (...args: unknown[]) => printed.push(args.map(String).join(" "));
    try {
      await using gw = await startTestGateway({ ...WEBHOOK_TEST_ENV, GATEWAY_LOG_REQUESTS: "1" });
      const created = (await gw.admin("POST", "/admin/webhooks", { url: receiver.url })).body;
      const rotated = (await gw.admin("POST", `/admin/webhooks/${created.id}/rotate`, {})).body;
      await gw.admin("POST", `/admin/webhooks/${created.id}/test`);
      await receiver.waitFor(1);
      await gw.settle();
      const secrets = [created.secret, rotated.secret];
      const parts = secrets.map((secret: string) => secret.slice("whsec_".length));
      const kv = gw.running.gateway.kv;
      for await (const entry of kv.list({ prefix: [] })) {
        const text = JSON.stringify(entry, (_k, v) => typeof v === "bigint" ? String(v) : v);
        for (const part of parts) assertOk(!text.includes(part), `secret in KV at ${entry.key}`);
      }
      const audit = JSON.stringify((await gw.admin("GET", "/admin/audit?limit=100")).body);
      assertOk(audit.includes("/admin/webhooks/:id/rotate"), "the rotation is audited");
      for (const part of parts) assertOk(!audit.includes(part), "secret in the audit log");
      for (const part of parts) assertOk(!printed.join("\n").includes(part), "secret in a log");
    } finally {
      console.log = log;
      console.error = error;
    }
  },
);

Deno.test(
  "admin webhooks: a config-file endpoint is signed with its env secret, refuses changes, and on a private address fails its attempts naming why",
  serverTest,
  async () => {
    await using receiver = startWebhookReceiver();
    await using dir = await tempDir();
    const secret = `whsec_${btoa("0123456789abcdef0123456789abcdef")}`;
    const configPath = `${dir.path}/gateway.json`;
    await Deno.writeTextFile(
      configPath,
      JSON.stringify({
        webhooks: [{ id: "ops", url: receiver.url, secret: { env: "OPS_WEBHOOK_SECRET" } }],
      }),
    );
    Deno.env.set("OPS_WEBHOOK_SECRET", secret);
    try {
      {
        await using gw = await startTestGateway({ GATEWAY_CONFIG: configPath });
        const view = (await gw.admin("GET", "/admin/webhooks/ops")).body;
        assertEquals([view.source, view.url], ["config", receiver.url]);
        for (
          const [method, path, body] of [
            ["PATCH", "/admin/webhooks/ops", { enabled: false }],
            ["DELETE", "/admin/webhooks/ops", undefined],
            ["POST", "/admin/webhooks/ops/rotate", {}],
          ] as const
        ) {
          const answer = await gw.admin(method, path, body);
          assertEquals([answer.status, answer.body.error.code], [409, "managed_by_config"]);
        }
        // GATEWAY_WEBHOOK_ALLOW_PRIVATE is off: the attempt is refused, the receiver gets nothing.
        const test = await gw.admin("POST", "/admin/webhooks/ops/test");
        assertEquals(test.body.status, "failed");
        const reason = test.body.attempts[0].error;
        assertOk(reason.includes("address refused") && reason.includes("loopback"), reason);
        assertEquals(receiver.received.length, 0);
      }
      await using allowed = await startTestGateway({
        GATEWAY_CONFIG: configPath,
        GATEWAY_WEBHOOK_ALLOW_PRIVATE: "1",
      });
      const test = await allowed.admin("POST", "/admin/webhooks/ops/test");
      assertEquals(test.body.status, "succeeded", JSON.stringify(test.body));
      const [received] = await receiver.waitFor(1);
      assertEquals(verified(secret, received).type, "webhook.test");
    } finally {
      Deno.env.delete("OPS_WEBHOOK_SECRET");
    }
  },
);
