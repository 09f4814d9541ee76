/**
 * The audit log end to end: every admin mutation (keys, channels, models) and the config file at
 * boot write a record with actor, address, route, target and before/after views; no secret is
 * ever stored; GET /admin/audit filters and pages.
 */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest, startTestGateway, type TestGateway } from "../helpers/gateway.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const UPSTREAM_SECRET = "sk-upstream-audit-0123456789abcdef";
const ROTATED_UPSTREAM_SECRET = "sk-upstream-audit-rotated-9876543210";

async function auditRecords(gw: TestGateway, query = ""): Promise<Json[]> {
  const records: Json[] = [];
  let cursor = "";
  do {
    const page = await gw.admin("GET", `/admin/audit?limit=1000${query}&cursor=${cursor}`);
    assertEquals(page.status, 200, JSON.stringify(page.body));
    records.push(...page.body.data);
    cursor = page.body.cursor ?? "";
  } while (cursor);
  return records;
}

/** Every audit record as stored in KV, as one JSON text. */
async function storedAuditText(gw: TestGateway): Promise<string> {
  const values: unknown[] = [];
  for await (const entry of gw.running.gateway.kv.list({ prefix: ["audit"] })) {
    values.push(entry.value);
  }
  return JSON.stringify(values);
}

Deno.test(
  "admin audit: each key, channel and model mutation is recorded with before/after and no secret",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    // Models
    assertEquals(
      (await gw.admin("PUT", "/admin/models/audit-m", {
        kind: "text",
        price: { input: 1, output: 2 },
      })).status,
      200,
    );
    assertEquals(
      (await gw.admin("PATCH", "/admin/models/audit-m", { price: { input: 3, output: 4 } }))
        .status,
      200,
    );
    // Channels
    const channel = await gw.admin("POST", "/admin/channels", {
      name: "audited",
      type: "openai",
      base_url: "http://127.0.0.1:9/v1",
      keys: [UPSTREAM_SECRET],
      models: ["audit-m"],
    });
    assertEquals(channel.status, 201);
    const channelId = channel.body.id;
    assertEquals(
      (await gw.admin("PATCH", `/admin/channels/${channelId}`, {
        priority: 5,
        keys: [ROTATED_UPSTREAM_SECRET],
      })).status,
      200,
    );
    // Keys
    const created = await gw.admin("POST", "/admin/keys", { name: "audited", balance: 700 });
    assertEquals(created.status, 201);
    const { id: keyId, key: keySecret } = created.body;
    assertEquals(
      (await gw.admin("PATCH", `/admin/keys/${keyId}`, { name: "renamed", rpm: 9 })).status,
      200,
    );
    assertEquals(
      (await gw.admin("POST", `/admin/keys/${keyId}/credit`, { amount: 300 })).status,
      201,
    );
    // A refused change is recorded with its status and nothing after.
    assertEquals(
      (await gw.admin("PATCH", `/admin/keys/${keyId}`, { rpm: "many" })).status,
      400,
    );
    assertEquals((await gw.admin("DELETE", `/admin/keys/${keyId}`)).status, 204);
    assertEquals((await gw.admin("DELETE", `/admin/channels/${channelId}`)).status, 204);
    assertEquals((await gw.admin("DELETE", "/admin/models/audit-m")).status, 204);
    // Reads are not changes.
    await gw.admin("GET", "/admin/keys");
    await gw.admin("GET", `/admin/channels/${channelId}`);

    const records = await auditRecords(gw, "&order=asc");
    const summary = records.map((r) =>
      `${r.method} ${r.route} ${r.target.kind}:${r.target.id} ${r.status}`
    );
    assertEquals(summary, [
      "PUT /admin/models/:id model:audit-m 200",
      "PATCH /admin/models/:id model:audit-m 200",
      `POST /admin/channels channel:${channelId} 201`,
      `PATCH /admin/channels/:id channel:${channelId} 200`,
      `POST /admin/keys key:${keyId} 201`,
      `PATCH /admin/keys/:id key:${keyId} 200`,
      `POST /admin/keys/:id/credit key:${keyId} 201`,
      `PATCH /admin/keys/:id key:${keyId} 400`,
      `DELETE /admin/keys/:id key:${keyId} 204`,
      `DELETE /admin/channels/:id channel:${channelId} 204`,
      "DELETE /admin/models/:id model:audit-m 204",
    ]);
    for (const record of records) {
      assertEquals(record.actor, "admin_token");
      assertEquals(record.client_address, "127.0.0.1");
      assertOk(record.id.startsWith("aud_") && !Number.isNaN(Date.parse(record.at)));
      assertOk(record.request_id?.startsWith("req_"), JSON.stringify(record));
    }
    const [putModel, patchModel, createChannel, patchChannel] = records;
    const [createKey, patchKey, credit, refused, deleteKey, deleteChannel, deleteModel] = records
      .slice(4);
    assertEquals([putModel.before, putModel.after.price], [null, { input: 1, output: 2 }]);
    assertEquals([patchModel.before.price, patchModel.after.price], [
      { input: 1, output: 2 },
      { input: 3, output: 4 },
    ]);
    assertEquals([createChannel.before, createChannel.after.key_count], [null, 1]);
    assertEquals([patchChannel.before.priority, patchChannel.after.priority], [0, 5]);
    assertEquals(createKey.before, null);
    assertEquals([createKey.after.name, createKey.after.balance], ["audited", 700]);
    assertEquals([patchKey.before.name, patchKey.after.name, patchKey.after.rpm], [
      "audited",
      "renamed",
      9,
    ]);
    assertEquals([credit.before.balance, credit.after.balance], [700, 1000]);
    assertEquals([refused.before.rpm, refused.after, refused.error_code], [
      9,
      null,
      "invalid_request",
    ]);
    assertEquals([deleteKey.before.name, deleteKey.after], ["renamed", null]);
    assertEquals([deleteChannel.before.id, deleteChannel.after], [channelId, null]);
    assertEquals([deleteModel.before.id, deleteModel.after], ["audit-m", null]);

    const stored = await storedAuditText(gw);
    for (const secret of [keySecret, UPSTREAM_SECRET, ROTATED_UPSTREAM_SECRET]) {
      assertOk(!stored.includes(secret), `a secret is in the audit log: ${secret.slice(0, 12)}…`);
    }
    assertOk(!/"(hash|sealed_keys|key)":/.test(stored), "a secret field is in the audit log");
  },
);

Deno.test(
  "admin audit: GET /admin/audit filters by actor, target kind and id, time, and pages",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const first = await gw.createKey({ name: "first" });
    const second = await gw.createKey({ name: "second" });
    await gw.admin("PATCH", `/admin/keys/${first.id}`, { rpm: 1 });
    await gw.putModel("filter-m", { kind: "text", price: { input: 1, output: 1 } });
    const all = await auditRecords(gw);
    assertEquals(all.length, 4);
    // Newest first by default.
    assertEquals(all.map((r) => r.target.id), ["filter-m", first.id, second.id, first.id]);

    const ofFirst = await auditRecords(gw, `&target_kind=key&target_id=${first.id}`);
    assertEquals(ofFirst.map((r) => r.method), ["PATCH", "POST"]);
    assertEquals((await auditRecords(gw, "&target_kind=model")).length, 1);
    assertEquals((await auditRecords(gw, "&actor=admin_token")).length, 4);
    assertEquals((await auditRecords(gw, "&actor=config")).length, 0);
    const since = all[1].at;
    assertEquals(
      (await auditRecords(gw, `&since=${encodeURIComponent(since)}`)).map((r) => r.target.id),
      ["filter-m", first.id],
    );

    // Two a page: the cursor leads on, and the last page says so.
    const page1 = await gw.admin("GET", "/admin/audit?limit=2&target_kind=key");
    assertEquals(page1.body.data.length, 2);
    assertOk(page1.body.cursor);
    const page2 = await gw.admin(
      "GET",
      `/admin/audit?limit=2&target_kind=key&cursor=${page1.body.cursor}`,
    );
    assertEquals(page2.body.data.map((r: Json) => r.target.id), [first.id]);
    assertEquals(page2.body.cursor, null);

    const bad = await gw.admin("GET", "/admin/audit?since=yesterday");
    assertEquals([bad.status, bad.body.error.code, bad.body.error.param], [
      400,
      "invalid_request",
      "since",
    ]);
    const noToken = await fetch(`${gw.url}/admin/audit`);
    assertEquals(noToken.status, 401);
    await noToken.body?.cancel();
  },
);

Deno.test(
  "admin audit: the config file's records are audited at boot as config:<file>, once per change",
  serverTest,
  async () => {
    const dir = await Deno.makeTempDir({ prefix: "gateway-audit-config-" });
    try {
      const configPath = `${dir}/gateway.json`;
      const kvPath = `${dir}/gateway.kv`;
      const writeConfig = (priority: number) =>
        Deno.writeTextFile(
          configPath,
          JSON.stringify({
            models: { "cfg-m": { kind: "text", price: { input: 1, output: 2 } } },
            channels: [{
              id: "cfg-ch",
              name: "configured",
              type: "openai",
              base_url: "http://127.0.0.1:9/v1",
              keys: [UPSTREAM_SECRET],
              models: ["cfg-m"],
              priority,
            }],
          }),
        );
      const env = { GATEWAY_CONFIG: configPath, GATEWAY_KV: kvPath };
      await writeConfig(1);
      {
        await using gw = await startTestGateway(env);
        const records = await auditRecords(gw, "&order=asc");
        assertEquals(
          records.map((r) => [r.actor, r.method, r.route, r.target.kind, r.target.id, r.status]),
          [
            [`config:${configPath}`, "PUT", "config:models", "model", "cfg-m", 200],
            [`config:${configPath}`, "PUT", "config:channels", "channel", "cfg-ch", 200],
          ],
        );
        assertEquals(records.map((r) => [r.client_address, r.before]), [[null, null], [
          null,
          null,
        ]]);
        assertEquals([records[1].after.source, records[1].after.priority], ["config", 1]);
        assertOk(!(await storedAuditText(gw)).includes(UPSTREAM_SECRET));
      }
      {
        // The same file again changes nothing, so it writes nothing.
        await using gw = await startTestGateway(env);
        assertEquals((await auditRecords(gw)).length, 2);
      }
      await writeConfig(2);
      {
        await using gw = await startTestGateway(env);
        const records = await auditRecords(gw, `&actor=config`);
        assertEquals(records.length, 3);
        assertEquals(
          [records[0].target.id, records[0].before.priority, records[0].after.priority],
          [
            "cfg-ch",
            1,
            2,
          ],
        );
      }
    } finally {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
);

Deno.test(
  "admin audit: the client address is the peer, or x-forwarded-for behind GATEWAY_TRUST_PROXY",
  serverTest,
  async () => {
    const change = async (gw: TestGateway) => {
      const response = await fetch(`${gw.url}/admin/keys`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "x-forwarded-for": "203.0.113.9" },
        body: JSON.stringify({ name: "via proxy" }),
      });
      assertEquals(response.status, 201);
      await response.body?.cancel();
      return (await auditRecords(gw))[0].client_address;
    };
    {
      await using gw = await startTestGateway();
      assertEquals(await change(gw), "127.0.0.1");
    }
    await using gw = await startTestGateway({ GATEWAY_TRUST_PROXY: "1" });
    assertEquals(await change(gw), "203.0.113.9");
  },
);

Deno.test(
  "admin audit: rotation, single upstream keys, channel tests and capture are recorded, no secret",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    await gw.admin("PUT", "/admin/models/audit-m2", {
      kind: "text",
      price: { input: 1, output: 2 },
    });
    const channel = await gw.admin("POST", "/admin/channels", {
      name: "audited-2",
      type: "openai",
      base_url: "http://127.0.0.1:9/v1",
      keys: [UPSTREAM_SECRET],
      models: ["audit-m2"],
    });
    const channelId = channel.body.id;
    const added = await gw.admin("PATCH", `/admin/channels/${channelId}`, {
      add_keys: [ROTATED_UPSTREAM_SECRET],
    });
    assertEquals(added.status, 200, JSON.stringify(added.body));
    const fingerprint = added.body.keys[0].fingerprint;
    assertEquals(
      (await gw.admin("PATCH", `/admin/channels/${channelId}`, { remove_keys: [fingerprint] }))
        .status,
      200,
    );
    // The channel's upstream refuses the connection: the test answers, nothing is changed.
    assertEquals((await gw.admin("POST", `/admin/channels/${channelId}/test`, {})).status, 200);
    const created = await gw.admin("POST", "/admin/keys", { name: "rotated", balance: 5 });
    const rotated = await gw.admin("POST", `/admin/keys/${created.body.id}/rotate`, {
      grace_seconds: 0,
    });
    assertEquals(rotated.status, 200, JSON.stringify(rotated.body));
    assertEquals(
      (await gw.admin("POST", `/admin/keys/${created.body.id}/capture`, { minutes: 5 })).status,
      200,
    );
    assertEquals(
      (await gw.admin("DELETE", `/admin/keys/${created.body.id}/capture`)).status,
      204,
    );

    const records = await auditRecords(gw, "&order=asc");
    const routes = records.map((r) => `${r.method} ${r.route} ${r.target.kind}`);
    for (
      const expected of [
        "PATCH /admin/channels/:id channel",
        "POST /admin/channels/:id/test channel",
        "POST /admin/keys/:id/rotate key",
        "POST /admin/keys/:id/capture key",
        "DELETE /admin/keys/:id/capture key",
      ]
    ) {
      assertOk(routes.includes(expected), `${expected} not in ${JSON.stringify(routes)}`);
    }
    const rotation = records.find((r) => r.route === "/admin/keys/:id/rotate");
    assertEquals(rotation.target.id, created.body.id);
    assertEquals(rotation.before.prefix, created.body.prefix);
    assertEquals(rotation.after.prefix, rotated.body.prefix);
    const stored = await storedAuditText(gw);
    for (
      const secret of [created.body.key, rotated.body.key, UPSTREAM_SECRET, ROTATED_UPSTREAM_SECRET]
    ) {
      assertOk(!stored.includes(secret), `a secret is in the audit log: ${secret.slice(0, 12)}…`);
    }
  },
);
