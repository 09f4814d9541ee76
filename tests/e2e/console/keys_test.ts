/**
 * The console's key pages over HTTP: create (post/redirect/get, the secret shown once), a bad
 * form answered 400 with nothing created, disable/enable followed by the API at once, credit,
 * edit, and every change audited as the console session's through the admin API's audit.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, postJson, serverTest } from "../../helpers/gateway.ts";
import { consoleClient } from "../../helpers/console_client.ts";
import { MODEL, setupChat } from "../../helpers/text_setup.ts";

const ask = { model: MODEL, messages: [{ role: "user", content: "hi" }] };

Deno.test(
  "console keys: create shows the secret once; the key works; disable/enable, credit and edit follow at the API; all audited",
  serverTest,
  async () => {
    await using s = await setupChat();
    const client = consoleClient(s.gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
    const created = await client.post("/console/keys", {
      name: "from console",
      balance: "2",
      rpm: "60",
      cap_day: "1.5",
    });
    await created.body?.cancel();
    assertEquals(created.status, 303);
    const location = created.headers.get("location")!;
    const id = location.match(/\/console\/keys\/(key_\w+)\/created$/)![1];

    const once = await (await client.get(location)).text();
    const secret = once.match(/<code id="secret" class="secret">(sk-gw-\w+)<\/code>/)?.[1];
    assertOk(secret, "the secret is shown");
    const again = await (await client.get(location)).text();
    assertOk(!again.includes(secret) && again.includes("cannot be shown again"), "only once");
    const detail = await (await client.get(`/console/keys/${id}`)).text();
    assertOk(!detail.includes(secret), "never on the detail page");
    assertOk(detail.includes("Σ entries = balance ✓"), "the ledger check");
    const sdk = await (await client.get(`/console/keys/${id}?tab=sdk`)).text();
    assertOk(sdk.includes(`baseURL: &quot;${s.gw.url}/v1&quot;`), "the OpenAI snippet");

    const view = (await s.gw.admin("GET", `/admin/keys/${id}`)).body;
    assertEquals(
      [view.name, view.balance, view.rpm, view.spend_limits],
      ["from console", 2_000_000, 60, { day: 1_500_000 }],
    );
    const first = await postJson(s.gw, "/v1/chat/completions", secret, ask);
    await first.body?.cancel();
    assertEquals(first.status, 200);

    const disable = await client.post(`/console/keys/${id}/enabled`, { enabled: "false" });
    await disable.body?.cancel();
    assertEquals(disable.status, 303);
    const refused = await postJson(s.gw, "/v1/chat/completions", secret, ask);
    assertEquals([refused.status, (await refused.json()).error.code], [401, "key_disabled"]);
    await (await client.post(`/console/keys/${id}/enabled`, { enabled: "true" })).body?.cancel();
    const back = await postJson(s.gw, "/v1/chat/completions", secret, ask);
    await back.body?.cancel();
    assertEquals(back.status, 200);

    const before = await s.gw.balance(id);
    const credit = await client.post(`/console/keys/${id}/credit`, {
      amount: "0.5",
      note: "top-up",
    });
    await credit.body?.cancel();
    assertEquals(credit.status, 303);
    await s.gw.settle();
    assertEquals(await s.gw.balance(id), before + 500_000);
    await s.gw.assertLedgerInvariant(id);

    const edit = await client.post(`/console/keys/${id}/edit`, {
      name: "renamed",
      group: "default",
      models: "",
      expires_at: "2099-01-01T00:00",
      rpm: "",
      tpm: "1000",
      cap_day: "",
      cap_week: "",
      cap_month: "",
    });
    await edit.body?.cancel();
    assertEquals(edit.status, 303);
    const edited = (await s.gw.admin("GET", `/admin/keys/${id}`)).body;
    assertEquals(
      [edited.name, edited.rpm, edited.tpm, edited.expires_at, edited.spend_limits],
      ["renamed", null, 1000, "2099-01-01T00:00:00Z", null],
    );

    const audit = (await s.gw.admin("GET", `/admin/audit?target_id=${id}`)).body.data;
    const routes = audit.map((record: { route: string }) => record.route).reverse();
    assertEquals(routes, [
      "/admin/keys",
      "/admin/keys/:id",
      "/admin/keys/:id",
      "/admin/keys/:id/credit",
      "/admin/keys/:id",
    ]);
    for (const record of audit) {
      assertOk(/^console:[0-9a-f]{16}$/.test(record.actor), record.actor);
      assertOk(!JSON.stringify(record).includes(secret), "no secret in the audit");
      assertOk(!JSON.stringify(record).includes(client.cookie.split("=")[1]), "no session id");
    }
  },
);

Deno.test(
  "console keys: a bad form is answered 400 on the form with the problem, creating nothing",
  serverTest,
  async () => {
    await using s = await setupChat();
    const client = consoleClient(s.gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
    const bad: Array<Record<string, string>> = [
      { name: "" },
      { name: "x", balance: "ten" },
      { name: "x", rpm: "-3" },
      { name: "x", expires_at: "tomorrow" },
    ];
    for (const fields of bad) {
      const response = await client.post("/console/keys", fields);
      const html = await response.text();
      assertEquals(response.status, 400, JSON.stringify(fields));
      assertOk(html.includes('role="alert"'), "the problem is said");
      assertOk(html.includes('<button type="submit">Create</button>'), "the form again");
    }
    assertEquals((await s.gw.admin("GET", "/admin/keys")).body.data.length, 1, "only setup's key");
    const credit = await client.post(`/console/keys/${s.keyId}/credit`, { amount: "0" });
    assertEquals(credit.status, 400);
    await credit.body?.cancel();
    assertEquals(await s.gw.balance(s.keyId), 10_000_000, "nothing credited");
  },
);

Deno.test(
  "console keys: list filters by name prefix and state, pages with a cursor, and offers the curl",
  serverTest,
  async () => {
    await using s = await setupChat();
    for (const name of ["alpha-1", "alpha-2", "alpha-3", "beta"]) {
      await s.gw.createKey({ name, enabled: name !== "alpha-2" });
    }
    const client = consoleClient(s.gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
    const names = (html: string) =>
      [...html.matchAll(/<a href="\/console\/keys\/key_\w+">([^<]+)</g)]
        .map((match) => match[1]);
    const alpha = await (await client.get("/console/keys?name_prefix=alpha&enabled=true")).text();
    assertEquals(names(alpha), ["alpha-3", "alpha-1"]);
    assertOk(alpha.includes("/admin/keys?name_prefix=alpha&amp;enabled=true"), "copy as curl");
    const first = await (await client.get("/console/keys?limit=2")).text();
    assertEquals(names(first).length, 2);
    const next = first.match(/href="(\/console\/keys\?[^"]+)" rel="next"/)![1].replaceAll(
      "&amp;",
      "&",
    );
    const second = await (await client.get(next)).text();
    assertEquals(names(second).length, 2);
    assertEquals(new Set([...names(first), ...names(second)]).size, 4);
  },
);

Deno.test(
  "console keys: an unreadable form body is a 400 page, creating nothing",
  serverTest,
  async () => {
    await using s = await setupChat();
    const client = consoleClient(s.gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
    const response = await fetch(`${s.gw.url}/console/keys`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: client.cookie, origin: s.gw.url, "content-type": "multipart/form-data" },
      body: "not multipart at all",
    });
    const html = await response.text();
    assertEquals(response.status, 400);
    assertOk(html.includes("could not be read"), html.slice(-400));
    assertEquals((await s.gw.admin("GET", "/admin/keys")).body.data.length, 1);
  },
);

Deno.test(
  "console keys: Rotate shows the new secret once (the old one ends after the grace); Delete needs the box ticked and ends the key at the API",
  serverTest,
  async () => {
    await using s = await setupChat();
    const client = consoleClient(s.gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
    const rotate = await client.post(`/console/keys/${s.keyId}/rotate`, { grace_seconds: "0" });
    await rotate.body?.cancel();
    assertEquals(rotate.headers.get("location"), `/console/keys/${s.keyId}/created`);
    const shown = await (await client.get(`/console/keys/${s.keyId}/created`)).text();
    const secret = shown.match(/<code id="secret" class="secret">(sk-gw-\w+)<\/code>/)?.[1];
    assertOk(secret && secret !== s.key, "a new secret");
    const again = await (await client.get(`/console/keys/${s.keyId}/created`)).text();
    assertOk(!again.includes(secret), "shown once");
    const old = await postJson(s.gw, "/v1/chat/completions", s.key, ask);
    await old.body?.cancel();
    assertEquals(old.status, 401, "grace 0: the old secret ends at once");
    const fresh = await postJson(s.gw, "/v1/chat/completions", secret, ask);
    await fresh.body?.cancel();
    assertEquals(fresh.status, 200);
    const badGrace = await client.post(`/console/keys/${s.keyId}/rotate`, { grace_seconds: "-1" });
    await badGrace.body?.cancel();
    assertEquals(badGrace.status, 400);

    const unticked = await client.post(`/console/keys/${s.keyId}/delete`, {});
    assertOk((await unticked.text()).includes("Tick the box"));
    assertEquals(unticked.status, 400);
    assertEquals((await s.gw.admin("GET", `/admin/keys/${s.keyId}`)).status, 200, "still there");
    const deleted = await client.post(`/console/keys/${s.keyId}/delete`, { confirm: "yes" });
    await deleted.body?.cancel();
    assertEquals([deleted.status, deleted.headers.get("location")], [303, "/console/keys"]);
    assertEquals((await s.gw.admin("GET", `/admin/keys/${s.keyId}`)).status, 404);
    const gone = await postJson(s.gw, "/v1/chat/completions", secret, ask);
    await gone.body?.cancel();
    assertEquals(gone.status, 401);
    const audit = (await s.gw.admin("GET", `/admin/audit?target_id=${s.keyId}&actor=console`))
      .body.data;
    assertEquals(
      audit.map((record: { method: string; route: string }) => `${record.method} ${record.route}`),
      ["DELETE /admin/keys/:id", "POST /admin/keys/:id/rotate"],
    );
  },
);
