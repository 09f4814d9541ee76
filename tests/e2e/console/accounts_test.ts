/**
 * The console's account pages over HTTP: the list (search, filters, sort, paging), New account,
 * credit (a wallet ledger entry, audited as POST /admin/accounts/:id/credit), suspend (every key
 * of the account refused with 403 account_disabled) and resume, edit, a key made in an account
 * from the New key form, bad input answered on the form with the API's own message and nothing
 * changed, and a key holder refused.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, postJson, serverTest, type TestGateway } from "../../helpers/gateway.ts";
import { consoleClient } from "../../helpers/console_client.ts";
import { MODEL, setupChat } from "../../helpers/text_setup.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const ask = { model: MODEL, messages: [{ role: "user", content: "hi" }] };

async function signedIn(gw: TestGateway) {
  const client = consoleClient(gw.url);
  await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
  return client;
}

async function createAccount(gw: TestGateway, input: Record<string, unknown>): Promise<Json> {
  const created = await gw.admin("POST", "/admin/accounts", input);
  assertEquals(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

async function keyIn(gw: TestGateway, accountId: string, name = "app"): Promise<Json> {
  const created = await gw.admin("POST", "/admin/keys", { name, account_id: accountId });
  assertEquals(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

/** The account names of a list page, in order. */
function listedNames(html: string): string[] {
  return [...html.matchAll(/<a href="\/console\/accounts\/acct_\w+">([^<]+)</g)]
    .map((match) => match[1]);
}

function htmlText(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;").replaceAll("'", "&#39;");
}

async function chat(gw: TestGateway, key: string) {
  const response = await postJson(gw, "/v1/chat/completions", key, ask);
  const body = await response.json();
  return { status: response.status, code: body.error?.code as string | undefined };
}

Deno.test(
  "console accounts: New account, a key in it from the New key form, credit, suspend/resume and edit follow at the API; all audited as the admin routes",
  serverTest,
  async () => {
    await using s = await setupChat();
    const client = await signedIn(s.gw);
    const created = await client.post("/console/accounts", {
      name: "Acme",
      group: "",
      credit_limit: "0.25",
      balance: "3",
    });
    await created.body?.cancel();
    assertEquals(created.status, 303);
    const id = created.headers.get("location")!.match(/^\/console\/accounts\/(acct_\w+)$/)![1];
    const view = (await s.gw.admin("GET", `/admin/accounts/${id}`)).body;
    assertEquals(
      [view.name, view.group, view.credit_limit, view.unlimited, view.enabled, view.balance],
      ["Acme", "default", 250_000, false, true, 3_000_000],
    );

    const form = await (await client.get(`/console/keys/new?account_id=${id}`)).text();
    assertOk(form.includes(`<option value="${id}" selected="">Acme (${id})</option>`), "chosen");
    assertOk(form.includes('<option value="">A new account of its own</option>'), "default");
    const newKey = await client.post("/console/keys", { name: "web", account_id: id });
    await newKey.body?.cancel();
    assertEquals(newKey.status, 303);
    const keyPage = newKey.headers.get("location")!;
    const keyId = keyPage.match(/\/console\/keys\/(key_\w+)\/created$/)![1];
    const secret = (await (await client.get(keyPage)).text())
      .match(/<code id="secret" class="secret">(sk-gw-\w+)<\/code>/)![1];
    const keyView = (await s.gw.admin("GET", `/admin/keys/${keyId}`)).body;
    assertEquals([keyView.account_id, keyView.balance], [id, 3_000_000]);
    const keyDetail = await (await client.get(`/console/keys/${keyId}`)).text();
    assertOk(keyDetail.includes(`<a href="/console/accounts/${id}">Acme</a>`), "its account");
    assertOk(keyDetail.includes("wallet, shared by its 1 key"), "says whose balance it is");
    assertEquals((await chat(s.gw, secret)).status, 200);

    const credit = await client.post(`/console/accounts/${id}/credit`, {
      amount: "0.5",
      note: "top-up",
    });
    await credit.body?.cancel();
    assertEquals([credit.status, credit.headers.get("location")], [
      303,
      `/console/accounts/${id}?tab=wallet`,
    ]);
    await s.gw.settle();
    const ledger = (await s.gw.admin("GET", `/admin/accounts/${id}/ledger?order=desc&limit=50`))
      .body.data;
    const topUp = ledger.find((entry: Json) => entry.note === "top-up");
    assertEquals([topUp?.type, topUp?.amount, topUp?.key_id], ["credit", 500_000, null]);
    const verified = (await s.gw.admin("GET", `/admin/accounts/${id}/ledger/verify`)).body;
    assertOk(verified.ok, JSON.stringify(verified));
    const detail = await (await client.get(`/console/accounts/${id}`)).text();
    assertOk(detail.includes("Σ entries = balance ✓"), "the ledger check");
    assertOk(detail.includes(`-$0.250000</span> (credit limit)`), "the floor");
    const wallet = await (await client.get(`/console/accounts/${id}?tab=wallet`)).text();
    assertOk(wallet.includes("top-up"), "the credit in the ledger");
    const keyed = ledger.filter((entry: Json) => entry.key_id === keyId).length;
    assertOk(keyed > 0, "the request's entries name the key");
    assertEquals(
      wallet.split(`<a href="/console/keys/${keyId}">web</a>`).length - 1,
      keyed,
      "each entry naming the key links to it",
    );
    const keys = await (await client.get(`/console/accounts/${id}?tab=keys`)).text();
    assertOk(keys.includes(`<a href="/console/keys/${keyId}">web</a>`), "the keys table");
    assertOk(keys.includes(`href="/console/requests?key=${keyId}"`), "the key's requests");
    const changes = await (await client.get(
      detail.match(/href="(\/console\/audit\?[^"]+)"/)![1].replaceAll("&amp;", "&"),
    )).text();
    assertOk(changes.includes("/admin/accounts/:id/credit"), "the audit log of the account");

    const unticked = await client.post(`/console/accounts/${id}/suspend`, {});
    assertEquals(unticked.status, 400);
    assertOk((await unticked.text()).includes("Tick the box"));
    assertEquals((await chat(s.gw, secret)).status, 200, "not suspended without the box");
    const suspend = await client.post(`/console/accounts/${id}/suspend`, { confirm: "yes" });
    await suspend.body?.cancel();
    assertEquals(suspend.status, 303);
    assertEquals(await chat(s.gw, secret), { status: 403, code: "account_disabled" });
    const suspendedPage = await (await client.get(`/console/accounts/${id}`)).text();
    assertOk(suspendedPage.includes('<button type="submit">Resume</button>'), "Resume offered");
    const resume = await client.post(`/console/accounts/${id}/resume`, {});
    await resume.body?.cancel();
    assertEquals(resume.status, 303);
    assertEquals((await chat(s.gw, secret)).status, 200);

    const edit = await client.post(`/console/accounts/${id}/edit`, {
      name: "Acme Ltd",
      group: "vip",
      credit_limit: "0.001",
      unlimited: "false",
    });
    await edit.body?.cancel();
    assertEquals(edit.status, 303);
    const edited = (await s.gw.admin("GET", `/admin/accounts/${id}`)).body;
    assertEquals(
      [edited.name, edited.group, edited.credit_limit, edited.unlimited],
      ["Acme Ltd", "vip", 1000, false],
    );
    assertEquals((await s.gw.admin("GET", `/admin/keys/${keyId}`)).body.group, "vip");

    const audit = (await s.gw.admin("GET", `/admin/audit?target_id=${id}`)).body.data;
    assertEquals(
      audit.map((record: Json) => `${record.method} ${record.route} ${record.status}`).reverse(),
      [
        "POST /admin/accounts 201",
        "POST /admin/accounts/:id/credit 201",
        "POST /admin/accounts/:id/suspend 200",
        "POST /admin/accounts/:id/resume 200",
        "PATCH /admin/accounts/:id 200",
      ],
    );
    const creditRecord = audit.find((record: Json) => record.route.endsWith("/credit"));
    assertEquals(creditRecord.after.balance - creditRecord.before.balance, 500_000);
    for (const record of audit) {
      assertOk(/^console:[0-9a-f]{16}$/.test(record.actor), record.actor);
      assertEquals(record.target.kind, "account");
      assertOk(!JSON.stringify(record).includes(client.cookie.split("=")[1]), "no session id");
    }
  },
);

Deno.test(
  "console accounts: bad input is answered 400 on the form with the API's message, changing nothing",
  serverTest,
  async () => {
    await using s = await setupChat();
    const client = await signedIn(s.gw);
    const account = await createAccount(s.gw, { name: "Acme", balance: 1_000_000 });
    const accountsBefore = (await s.gw.admin("GET", "/admin/accounts")).body.data.length;
    const auditBefore = (await s.gw.admin("GET", "/admin/audit?limit=1000")).body.data.length;

    const badAccounts: Array<[Record<string, string>, Record<string, unknown>]> = [
      [{ name: "" }, { name: "" }],
      // Money is typed in currency: -5 is -5,000,000 units.
      [{ name: "x", balance: "-5" }, { name: "x", balance: -5_000_000 }],
      [{ name: "x", balance: "0.0000001" }, { name: "x", balance: "0.0000001" }],
      [{ name: "x", credit_limit: "lots" }, { name: "x", credit_limit: "lots" }],
    ];
    for (const [fields, apiBody] of badAccounts) {
      const api = await s.gw.admin("POST", "/admin/accounts", apiBody);
      assertEquals(api.status, 400, JSON.stringify(api.body));
      const response = await client.post("/console/accounts", fields);
      const html = await response.text();
      assertEquals(response.status, 400, JSON.stringify(fields));
      assertOk(html.includes(htmlText(api.body.error.message)), `${fields}: the API's message`);
      assertOk(html.includes('<button type="submit">Create</button>'), "the form again");
    }

    const id = account.id;
    const badCredits: Array<[Record<string, string>, Record<string, unknown>]> = [
      [{ amount: "0.0000001" }, { amount: "0.0000001" }],
      [{ amount: "ten" }, { amount: "ten" }],
      [{ amount: "0" }, { amount: 0 }],
      [{ amount: "" }, { amount: "" }],
    ];
    for (const [fields, apiBody] of badCredits) {
      const api = await s.gw.admin("POST", `/admin/accounts/${id}/credit`, apiBody);
      assertEquals(api.status, 400, JSON.stringify(api.body));
      const response = await client.post(`/console/accounts/${id}/credit`, fields);
      const html = await response.text();
      assertEquals(response.status, 400, JSON.stringify(fields));
      assertOk(html.includes(htmlText(api.body.error.message)), `${fields}: the API's message`);
      assertOk(html.includes('<button type="submit">Add credit</button>'), "the form again");
    }
    const badEdits: Array<Record<string, string>> = [
      { name: "", group: "default", credit_limit: "0", unlimited: "false" },
      { name: "y", group: "default", credit_limit: "-1", unlimited: "false" },
    ];
    for (const fields of badEdits) {
      const response = await client.post(`/console/accounts/${id}/edit`, fields);
      const html = await response.text();
      assertEquals(response.status, 400, JSON.stringify(fields));
      assertOk(html.includes('role="alert"'), "the problem is said");
    }
    const keyWithBalance = await client.post("/console/keys", {
      name: "k",
      account_id: id,
      balance: "5",
    });
    const keyHtml = await keyWithBalance.text();
    assertEquals(keyWithBalance.status, 400);
    assertOk(keyHtml.includes("takes balance from the account"), keyHtml.slice(-600));
    const unknownAccount = await client.post("/console/keys", {
      name: "k",
      account_id: "acct_nothere",
    });
    assertEquals(unknownAccount.status, 400);
    assertOk((await unknownAccount.text()).includes("names no account"));

    const after = (await s.gw.admin("GET", `/admin/accounts/${id}`)).body;
    assertEquals([after.name, after.balance, after.credit_limit], ["Acme", 1_000_000, 0]);
    assertEquals((await s.gw.admin("GET", "/admin/accounts")).body.data.length, accountsBefore);
    assertEquals((await s.gw.admin("GET", `/admin/accounts/${id}/keys`)).body.data, []);
    const audit = (await s.gw.admin("GET", "/admin/audit?limit=1000")).body.data;
    const changes = audit.slice(0, audit.length - auditBefore)
      .filter((record: Json) => record.actor.startsWith("console:") && record.status < 400);
    assertEquals(changes, [], "no change recorded");
    const unknown = await client.get("/console/accounts/acct_nothere");
    await unknown.body?.cancel();
    assertEquals(unknown.status, 404);
  },
);

Deno.test(
  "console accounts: the list searches by name or id, filters by group and state, sorts by name, balance, spend and last use, and pages",
  serverTest,
  async () => {
    await using s = await setupChat();
    const client = await signedIn(s.gw);
    const alpha = await createAccount(s.gw, { name: "alpha", balance: 1_000_000 });
    await createAccount(s.gw, { name: "beta", balance: 5_000_000 });
    const gamma = await createAccount(s.gw, { name: "gamma", balance: 3_000_000 });
    await createAccount(s.gw, { name: "delta", group: "vip", enabled: false });
    const key = await keyIn(s.gw, gamma.id);
    assertEquals((await chat(s.gw, key.key)).status, 200);
    await s.gw.settle();

    const names = async (query: string) =>
      listedNames(await (await client.get(`/console/accounts${query}`)).text());
    assertEquals(await names("?q=ALP"), ["alpha"]);
    assertEquals(await names(`?q=${alpha.id.slice(-8)}`), ["alpha"]);
    assertEquals(await names("?group=vip"), ["delta"]);
    assertEquals(await names("?enabled=false"), ["delta"]);
    assertEquals(await names("?group=default&enabled=true&sort=name"), [
      "alpha",
      "beta",
      "gamma",
      "test",
    ]);
    assertEquals(await names("?group=default&enabled=true&sort=name&order=desc"), [
      "test",
      "gamma",
      "beta",
      "alpha",
    ]);
    const byBalance = await names("?group=default&enabled=true&sort=balance");
    assertEquals(byBalance, ["test", "beta", "gamma", "alpha"], "setup's key's own account: 10.00");
    assertEquals((await names("?group=default&enabled=true&sort=spend"))[0], "gamma");
    assertEquals((await names("?group=default&enabled=true&sort=last_used"))[0], "gamma");
    const list =
      await (await client.get("/console/accounts?group=default&enabled=true&sort=balance")).text();
    assertOk(
      list.includes("/admin/accounts?group=default&amp;enabled=true&amp;sort=balance"),
      "copy as curl",
    );
    assertOk(list.includes('<a class="button" href="/console/accounts/new">New account</a>'));

    const first =
      await (await client.get("/console/accounts?group=default&enabled=true&sort=name&limit=2"))
        .text();
    assertEquals(listedNames(first), ["alpha", "beta"]);
    const next = first.match(/href="(\/console\/accounts\?[^"]+)" rel="next"/)![1]
      .replaceAll("&amp;", "&");
    const second = await (await client.get(next)).text();
    assertEquals(listedNames(second), ["gamma", "test"]);
    assertOk(!second.includes('rel="next"'), "the last page");
    const bad = await client.get("/console/accounts?sort=size");
    await bad.body?.cancel();
    assertEquals(bad.status, 400);
  },
);

Deno.test(
  "console accounts: a key holder's session is refused every account page and change (403) and has no Accounts in its navigation",
  serverTest,
  async () => {
    await using s = await setupChat();
    const account = await createAccount(s.gw, { name: "Acme", balance: 1_000_000 });
    const holder = consoleClient(s.gw.url);
    await (await holder.signIn(s.key)).body?.cancel();
    assertOk(holder.cookie, "signed in as the key holder");
    const me = await (await holder.get("/console/me")).text();
    assertOk(!me.includes('href="/console/accounts"'), "no Accounts link");
    for (
      const path of [
        "/console/accounts",
        "/console/accounts/new",
        `/console/accounts/${account.id}`,
      ]
    ) {
      const response = await holder.get(path);
      await response.body?.cancel();
      assertEquals(response.status, 403, path);
    }
    for (const path of ["/console/accounts", `/console/accounts/${account.id}/credit`]) {
      const response = await holder.post(path, { name: "intruder", amount: "1000000" });
      await response.body?.cancel();
      assertEquals(response.status, 403, path);
    }
    const suspend = await holder.post(`/console/accounts/${account.id}/suspend`, {
      confirm: "yes",
    });
    await suspend.body?.cancel();
    assertEquals(suspend.status, 403);
    const after = (await s.gw.admin("GET", `/admin/accounts/${account.id}`)).body;
    assertEquals([after.balance, after.enabled], [1_000_000, true]);
    assertEquals((await s.gw.admin("GET", "/admin/accounts?q=intruder")).body.data, []);

    const operator = await signedIn(s.gw);
    const overview = await (await operator.get("/console/accounts")).text();
    assertOk(
      overview.includes('<a href="/console/accounts" aria-current="page">Accounts</a>'),
      "Accounts in the operator's navigation",
    );
  },
);
