/**
 * The console's channel pages over HTTP: the list with health, Disable/Enable followed by the
 * API at once, a Test, edit (a bad value answered 400 with nothing changed), upstream keys by
 * fingerprint only, and every change audited as the console session's.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, postJson, serverTest } from "../../helpers/gateway.ts";
import { consoleClient } from "../../helpers/console_client.ts";
import { MODEL, setupChat } from "../../helpers/text_setup.ts";

const ask = { model: MODEL, messages: [{ role: "user", content: "hi" }] };

Deno.test(
  "console channels: list with health; disable stops the model, enable brings it back; test; edit; keys; audited",
  serverTest,
  async () => {
    await using s = await setupChat();
    const client = consoleClient(s.gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
    const served = await postJson(s.gw, "/v1/chat/completions", s.key, ask);
    await served.body?.cancel();
    assertEquals(served.status, 200);
    await s.gw.settle();
    const channel = (await s.gw.admin("GET", "/admin/channels")).body.data[0];

    const list = await client.get("/console/channels");
    const listHtml = await list.text();
    assertEquals(list.status, 200);
    assertOk(listHtml.includes(`href="/console/channels/${channel.id}"`), "links the detail");
    assertOk(listHtml.includes("Copy as curl"), "offers curl");

    const disable = await client.post(`/console/channels/${channel.id}/enabled`, {
      enabled: "false",
    });
    await disable.body?.cancel();
    assertEquals(disable.status, 303);
    const refused = await postJson(s.gw, "/v1/chat/completions", s.key, ask);
    await refused.body?.cancel();
    assertOk(refused.status >= 400, `a disabled channel serves nothing: ${refused.status}`);
    await (await client.post(`/console/channels/${channel.id}/enabled`, { enabled: "true" })).body
      ?.cancel();
    const back = await postJson(s.gw, "/v1/chat/completions", s.key, ask);
    await back.body?.cancel();
    assertEquals(back.status, 200);

    const test = await client.post(`/console/channels/${channel.id}/test`, { model: MODEL });
    const testHtml = await test.text();
    assertEquals(test.status, 200);
    assertOk(testHtml.includes('role="status"') && testHtml.includes(">ok<"), "the test passed");

    const edit = await client.post(`/console/channels/${channel.id}/edit`, {
      name: "renamed",
      base_url: channel.base_url,
      priority: "5",
      weight: "3",
      groups: "default, vip",
      models: MODEL,
      timeout_ms: "30000",
    });
    await edit.body?.cancel();
    assertEquals(edit.status, 303);
    const edited = (await s.gw.admin("GET", `/admin/channels/${channel.id}`)).body;
    assertEquals(
      [edited.name, edited.priority, edited.weight, edited.groups, edited.timeout_ms],
      ["renamed", 5, 3, ["default", "vip"], 30000],
    );

    const added = await client.post(`/console/channels/${channel.id}/keys`, {
      action: "add",
      key: "sk-second-upstream-9876",
    });
    await added.body?.cancel();
    assertEquals(added.status, 303);
    const withTwo = (await s.gw.admin("GET", `/admin/channels/${channel.id}`)).body;
    assertEquals(withTwo.keys.length, 2);
    const detail = await (await client.get(`/console/channels/${channel.id}`)).text();
    assertOk(
      !detail.includes("sk-second-upstream") && !detail.includes("sk-upstream-test"),
      "no key",
    );
    assertOk(detail.includes(withTwo.keys[1].fingerprint), "the fingerprint is shown");
    const removed = await client.post(`/console/channels/${channel.id}/keys`, {
      action: "remove",
      fingerprint: withTwo.keys[1].fingerprint,
    });
    await removed.body?.cancel();
    assertEquals(
      (await s.gw.admin("GET", `/admin/channels/${channel.id}`)).body.keys,
      [withTwo.keys[0]],
    );

    const audit =
      (await s.gw.admin("GET", `/admin/audit?target_id=${channel.id}&actor=console`)).body.data;
    assertEquals(audit.length, 5);
    for (const record of audit) {
      assertEquals(record.route, "/admin/channels/:id");
      assertOk(/^console:[0-9a-f]{16}$/.test(record.actor), record.actor);
      assertOk(!JSON.stringify(record).includes("sk-second-upstream"), "no key in the audit");
    }
  },
);

Deno.test(
  "console channels: bad edits and key forms are answered 400 with the problem, changing nothing",
  serverTest,
  async () => {
    await using s = await setupChat();
    const client = consoleClient(s.gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
    const channel = (await s.gw.admin("GET", "/admin/channels")).body.data[0];
    const bad: Array<[string, Record<string, string>]> = [
      ["edit", { weight: "0" }],
      ["edit", { priority: "high" }],
      ["edit", { base_url: "not a url" }],
      ["edit", { models: "" }],
      ["keys", { action: "add", key: "" }],
      ["keys", { action: "remove", fingerprint: "zz" }],
      ["keys", { action: "rotate" }],
      ["test", { model: "no-such-model" }],
    ];
    for (const [action, fields] of bad) {
      const response = await client.post(`/console/channels/${channel.id}/${action}`, fields);
      const html = await response.text();
      assertEquals(response.status, 400, JSON.stringify(fields));
      assertOk(html.includes('role="alert"'), "the problem is said");
    }
    const after = (await s.gw.admin("GET", `/admin/channels/${channel.id}`)).body;
    assertEquals(after.updated_at, channel.updated_at, "nothing changed");
    const missing = await client.get("/console/channels/ch_nope");
    await missing.body?.cancel();
    assertEquals(missing.status, 404);
  },
);

Deno.test(
  "console channels: a disabled channel's model is still served by another channel; a holder cannot disable",
  serverTest,
  async () => {
    await using s = await setupChat();
    const client = consoleClient(s.gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
    const first = (await s.gw.admin("GET", "/admin/channels")).body.data[0];
    const second = await s.gw.admin("POST", "/admin/channels", {
      name: "backup",
      type: "openai",
      base_url: first.base_url,
      keys: ["sk-upstream-test"],
      models: [MODEL],
      model_map: first.model_map,
    });
    assertEquals(second.status, 201);
    await (await client.post(`/console/channels/${first.id}/enabled`, { enabled: "false" })).body
      ?.cancel();
    assertEquals((await s.gw.admin("GET", `/admin/channels/${first.id}`)).body.enabled, false);
    const served = await postJson(s.gw, "/v1/chat/completions", s.key, ask);
    await served.body?.cancel();
    assertEquals(served.status, 200, "the backup channel serves the model");

    const holder = consoleClient(s.gw.url);
    await (await holder.signIn(s.key)).body?.cancel();
    const refused = await holder.post(`/console/channels/${second.body.id}/enabled`, {
      enabled: "false",
    });
    await refused.body?.cancel();
    assertEquals(refused.status, 403);
    for (const path of ["/console/models", `/console/channels/${first.id}`]) {
      const page = await holder.get(path);
      await page.body?.cancel();
      assertEquals(page.status, 403, path);
    }
    assertEquals((await s.gw.admin("GET", `/admin/channels/${second.body.id}`)).body.enabled, true);
  },
);
