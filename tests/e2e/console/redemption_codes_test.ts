/**
 * The console's redemption-code pages over HTTP: New batch shows the batch's codes once (sealed in
 * the session; the reload has none) with Copy all and Download as text, and nowhere else (the
 * list, the batch page, the CSV, the audit log, KV); a code disabled, a redeemed one refused 409,
 * the batch disabled, the state filter and paging, the CSV as the admin export's; every change
 * audited as the admin route's; bad input answered 400 on the form with the API's message and
 * nothing made; key-holder and member sessions refused (403).
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { serverTest, startTestGateway, type TestGateway } from "../../helpers/gateway.ts";
import { type ConsoleClient } from "../../helpers/console_client.ts";
import { holderSession, memberSession, operatorSession } from "../../helpers/console_roles.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const CODE = /gwr-[0-9A-Za-z]{24}/g;

function htmlText(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;").replaceAll("'", "&#39;");
}

/** Makes a batch from the New batch form; returns its id and the codes page's path. */
async function newBatch(client: ConsoleClient, fields: Record<string, string>) {
  const created = await client.post("/console/redemption-codes", fields);
  await created.body?.cancel();
  assertEquals(created.status, 303);
  const location = created.headers.get("location")!;
  const id = location.match(/^\/console\/redemption-codes\/(rb_\w+)\/created$/)![1];
  return { id, location };
}

/** The codes of the shown-once page, from its `<pre id="codes">`. */
function codesOn(html: string): string[] {
  const pre = html.match(/<pre id="codes" class="secret">([^<]*)<\/pre>/);
  return pre ? pre[1].trim().split("\n") : [];
}

async function consoleAudit(gw: TestGateway): Promise<Json[]> {
  const audit = (await gw.admin("GET", "/admin/audit?limit=1000")).body.data as Json[];
  return audit.filter((record) => record.actor.startsWith("console:"));
}

Deno.test(
  "console redemption codes: New batch shows its codes once; disable a code and the batch; filter; CSV; all audited",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const client = await operatorSession(gw);
    const form = await (await client.get("/console/redemption-codes/new")).text();
    assertOk(form.includes('<button type="submit">Create batch</button>'), "the form");
    assertOk(form.includes('type="datetime-local"'), "the expiry");

    const { id, location } = await newBatch(client, {
      name: "launch",
      amount: "2",
      count: "3",
      expires_at: "2030-01-01T00:00",
      group: "vip",
    });
    const shown = await (await client.get(location)).text();
    const codes = codesOn(shown);
    assertEquals(codes.length, 3, shown.slice(-2000));
    for (const code of codes) assertOk(/^gwr-[0-9A-Za-z]{24}$/.test(code), code);
    assertOk(shown.includes('data-copy="codes"'), "Copy all");
    const download = shown.match(/<a class="button" href="([^"]+)" download="([^"]+)">/)!;
    assertEquals(download[2], `${id}-codes.txt`);
    assertEquals(
      decodeURIComponent(download[1].replace("data:text/plain;charset=utf-8,", "")),
      codes.join("\n") + "\n",
      "Download as text holds the codes",
    );
    const again = await client.get(location);
    const reloaded = await again.text();
    assertEquals(again.status, 200);
    assertEquals(reloaded.match(CODE), null, "no code on the reload");
    assertOk(reloaded.includes("cannot be shown again"));

    const batch = (await gw.admin("GET", `/admin/redemption-batches/${id}`)).body;
    assertEquals(
      [batch.name, batch.amount, batch.count, batch.expires_at, batch.group, batch.states.unused],
      ["launch", 2_000_000, 3, "2030-01-01T00:00:00.000Z", "vip", 3],
    );
    const codeIds = (await gw.admin("GET", `/admin/redemption-batches/${id}/codes`)).body.data
      .map((code: Json) => code.id);
    assertEquals(
      [...shown.matchAll(/<td><code>(rc_\w+)<\/code><\/td><td><code>(gwr-\w+)<\/code>/g)]
        .map((match) => [match[1], match[2]]),
      codeIds.map((codeId: string, index: number) => [codeId, codes[index]]),
      "each code beside its id",
    );

    // The codes are real: the first credits an account of the batch's group.
    const account = (await gw.admin("POST", "/admin/accounts", { name: "Acme", group: "vip" }))
      .body;
    const gateway = gw.running.gateway;
    const redemption = await gateway.redemptions.redeem(codes[0], {
      accountId: account.id,
      walletId: account.wallet_id,
      group: "vip",
    });
    assertEquals(redemption.code_id, codeIds[0], "the first code is the first id");

    const disabled = await client.post(
      `/console/redemption-codes/${id}/codes/${codeIds[1]}/disable`,
      {},
    );
    await disabled.body?.cancel();
    assertEquals(
      [disabled.status, disabled.headers.get("location")],
      [303, `/console/redemption-codes/${id}#${codeIds[1]}`],
    );
    const redeemed = await client.post(
      `/console/redemption-codes/${id}/codes/${codeIds[0]}/disable`,
      {},
    );
    assertEquals(redeemed.status, 409);
    assertOk((await redeemed.text()).includes("cannot be disabled"), "the API's message");

    const page = await (await client.get(`/console/redemption-codes/${id}`)).text();
    assertOk(page.includes("3: 1 unused, 1 redeemed, 1 disabled, 0 expired"), "the counts");
    assertOk(
      page.includes(`<a href="/console/accounts/${account.id}">${account.name}</a>`),
      "who, by name",
    );
    assertEquals(page.match(/aria-label="Disable code /g)?.length, 1, "only the unused one");
    const onlyDisabled = await (await client.get(`/console/redemption-codes/${id}?state=disabled`))
      .text();
    assertEquals(
      [...onlyDisabled.matchAll(/<tr id="(rc_\w+)">/g)].map((match) => match[1]),
      [codeIds[1]],
    );
    const badState = await client.get(`/console/redemption-codes/${id}?state=lost`);
    await badState.body?.cancel();
    assertEquals(badState.status, 400);

    const csv = await client.get(`/console/redemption-codes/${id}/codes.csv`);
    const csvText = await csv.text();
    assertEquals(csv.status, 200);
    assertOk(csv.headers.get("content-type")?.startsWith("text/csv"));
    assertEquals(
      csv.headers.get("content-disposition"),
      `attachment; filename="${id}-codes.csv"`,
    );
    const adminCsv = await fetch(`${gw.url}/admin/redemption-batches/${id}/codes.csv`, {
      headers: { authorization: "Bearer test-admin-token" },
    });
    assertEquals(csvText, await adminCsv.text(), "the admin export's content");
    assertOk(csvText.startsWith("id,state,redeemed_by,redeemed_at\r\n"));
    assertOk(page.includes(`href="/console/redemption-codes/${id}/codes.csv"`), "Export CSV");

    const unticked = await client.post(`/console/redemption-codes/${id}/disable`, {});
    assertEquals(unticked.status, 400);
    assertOk((await unticked.text()).includes("Tick the box"));
    assertEquals(
      (await gw.admin("GET", `/admin/redemption-batches/${id}`)).body.disabled_at,
      null,
      "not without the box",
    );
    const off = await client.post(`/console/redemption-codes/${id}/disable`, { confirm: "yes" });
    await off.body?.cancel();
    assertEquals(off.status, 303);
    const states = (await gw.admin("GET", `/admin/redemption-batches/${id}`)).body.states;
    assertEquals(states, { unused: 0, redeemed: 1, disabled: 2, expired: 0 });

    const list = await (await client.get("/console/redemption-codes")).text();
    assertOk(list.includes(`<a href="/console/redemption-codes/${id}">launch</a>`), "listed");
    assertOk(
      list.includes(
        '<td><span class="money">$2.000000</span></td><td>3</td><td>1</td><td>0</td><td>2</td><td>0</td>',
      ),
    );
    assertOk(list.includes("<td>vip</td>"), "the group restriction");
    assertOk(
      list.includes('<a href="/console/redemption-codes" aria-current="page">Codes</a>'),
      "in the operator's navigation",
    );

    // Never anywhere else: pages, CSV, audit log, KV.
    for (const text of [page, list, csvText, onlyDisabled, reloaded]) {
      assertEquals(text.match(CODE), null);
    }
    const audit = (await consoleAudit(gw)).reverse();
    assertOk(!JSON.stringify(audit).match(CODE), "no code in the audit log");
    for await (const entry of gateway.kv.list({ prefix: [] })) {
      assertOk(!JSON.stringify(entry).match(CODE), `a code in clear at ${entry.key}`);
    }
    assertEquals(
      audit.map((record) => `${record.method} ${record.route} ${record.status}`),
      [
        "POST /admin/redemption-batches 201",
        "POST /admin/redemption-codes/:id/disable 200",
        "POST /admin/redemption-codes/:id/disable 409",
        "POST /admin/redemption-batches/:id/disable 200",
      ],
    );
    assertEquals(audit[0].target, { kind: "redemption_batch", id });
    assertEquals(audit[0].after.name, "launch");
    assertEquals(audit[1].target, { kind: "redemption_code", id: codeIds[1] });
    assertEquals([audit[1].before.state, audit[1].after.state], ["unused", "disabled"]);
    assertEquals(audit[3].after.states.disabled, 2);
  },
);

Deno.test(
  "console redemption codes: a batch of 1,000 shows all its codes once; its codes page by 100",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const client = await operatorSession(gw);
    const { id, location } = await newBatch(client, {
      name: "big",
      amount: "0.000001",
      count: "1000",
    });
    const codes = codesOn(await (await client.get(location)).text());
    assertEquals(codes.length, 1000);
    assertEquals(new Set(codes).size, 1000);
    const rowsOf = (html: string) => [...html.matchAll(/<tr id="(rc_\w+)">/g)].length;
    let page = await (await client.get(`/console/redemption-codes/${id}`)).text();
    let seen = rowsOf(page);
    assertEquals(seen, 100);
    for (let pages = 1; pages < 20; pages++) {
      const next = page.match(/href="([^"]+)" rel="next"/);
      if (!next) break;
      page = await (await client.get(next[1].replaceAll("&amp;", "&"))).text();
      seen += rowsOf(page);
    }
    assertEquals(seen, 1000);
  },
);

Deno.test(
  "console redemption codes: bad input is answered 400 on the form with the API's message, making nothing",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const client = await operatorSession(gw);
    const good = { name: "n", amount: "0.0001", count: "2" };
    const goodJson = { name: "n", amount: 100, count: 2 };
    const bad: Array<[Record<string, string>, Record<string, unknown>]> = [
      [{ ...good, name: "" }, { ...goodJson, name: "" }],
      [{ ...good, amount: "0" }, { ...goodJson, amount: 0 }],
      // Money is typed in currency: -5 is -5,000,000 units.
      [{ ...good, amount: "-5" }, { ...goodJson, amount: -5_000_000 }],
      [{ ...good, amount: "0.0000001" }, { ...goodJson, amount: "0.0000001" }],
      [{ ...good, amount: "" }, { ...goodJson, amount: "" }],
      [{ ...good, count: "0" }, { ...goodJson, count: 0 }],
      [{ ...good, count: "1001" }, { ...goodJson, count: 1001 }],
      [{ ...good, count: "ten" }, { ...goodJson, count: "ten" }],
      [
        { ...good, expires_at: "2020-01-01T00:00" },
        { ...goodJson, expires_at: "2020-01-01T00:00:00Z" },
      ],
      [{ ...good, expires_at: "soon" }, { ...goodJson, expires_at: "soon" }],
    ];
    for (const [fields, json] of bad) {
      const api = await gw.admin("POST", "/admin/redemption-batches", json);
      assertEquals(api.status, 400, JSON.stringify(api.body));
      const response = await client.post("/console/redemption-codes", fields);
      const html = await response.text();
      assertEquals(response.status, 400, JSON.stringify(fields));
      assertOk(html.includes(htmlText(api.body.error.message)), `${JSON.stringify(fields)}`);
      assertOk(html.includes('<button type="submit">Create batch</button>'), "the form again");
      assertOk(html.includes(`value="${htmlText(fields.name)}"`), "what was typed stays");
      assertEquals(html.match(CODE), null);
    }
    assertEquals((await gw.admin("GET", "/admin/redemption-batches")).body.data, []);
    assertEquals(
      (await consoleAudit(gw)).filter((record) => record.status < 400),
      [],
      "nothing recorded as made",
    );

    const unknown = await client.get("/console/redemption-codes/rb_nothere");
    await unknown.body?.cancel();
    assertEquals(unknown.status, 404);
    const { id } = await newBatch(client, good);
    const other = await newBatch(client, good);
    const otherCode = (await gw.admin("GET", `/admin/redemption-batches/${other.id}/codes`)).body
      .data[0].id;
    const wrongBatch = await client.post(
      `/console/redemption-codes/${id}/codes/${otherCode}/disable`,
      {},
    );
    await wrongBatch.body?.cancel();
    assertEquals(wrongBatch.status, 404, "a code of another batch");
    assertEquals(
      (await gw.admin("GET", `/admin/redemption-batches/${other.id}`)).body.states.unused,
      2,
    );
  },
);

Deno.test(
  "console redemption codes: a key holder's and a member's sessions are refused every page and change, and a form without the session's CSRF token (403)",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const made = await gw.admin("POST", "/admin/redemption-batches", {
      name: "n",
      amount: 100,
      count: 1,
    });
    const id = made.body.id;
    const codeId = made.body.codes[0].id;
    const holder = await holderSession(gw);
    const member = await memberSession(gw, "mo@example.com");
    const pages = [
      "/console/redemption-codes",
      "/console/redemption-codes/new",
      `/console/redemption-codes/${id}`,
      `/console/redemption-codes/${id}/created`,
      `/console/redemption-codes/${id}/codes.csv`,
    ];
    for (const client of [holder, member]) {
      for (const path of pages) {
        const response = await client.get(path);
        await response.body?.cancel();
        assertEquals(response.status, 403, path);
      }
    }
    const me = await (await holder.get("/console/me")).text();
    assertOk(!me.includes('href="/console/redemption-codes"'), "no Codes link for a holder");
    const changes: Array<[string, Record<string, string>]> = [
      ["/console/redemption-codes", { name: "x", amount: "0.0001", count: "1" }],
      [`/console/redemption-codes/${id}/disable`, { confirm: "yes" }],
      [`/console/redemption-codes/${id}/codes/${codeId}/disable`, {}],
    ];
    const operator = await operatorSession(gw);
    for (const [path, fields] of changes) {
      const forged = await operator.post(path, fields, { csrf: "not-the-session-token" });
      await forged.body?.cancel();
      assertEquals(forged.status, 403, `${path} without the session's CSRF token`);
      const byHolder = await holder.post(path, fields);
      await byHolder.body?.cancel();
      assertEquals(byHolder.status, 403, path);
      const byMember = await member.postMember(path, fields);
      await byMember.body?.cancel();
      assertEquals(byMember.status, 403, path);
    }
    const batches = (await gw.admin("GET", "/admin/redemption-batches")).body.data;
    assertEquals(batches.length, 1, "nothing made");
    const states = (await gw.admin("GET", `/admin/redemption-batches/${id}`)).body.states;
    assertEquals(states.unused, 1, "nothing disabled");
  },
);
