/**
 * One money format across the console, over HTTP against a real gateway: the operator sets the
 * currency and precision on the Money page (audited as PATCH /admin/settings/money; bad input is
 * 400 with the API's message, changing nothing; other sessions are refused), and then every page
 * of the operator, a member and a key holder shows each amount in that currency: a scan of each
 * page's text finds no decimal amount without the currency's symbol. A rounded amount carries
 * its exact value; one too small to show reads "< €0.001", never zero; prices stay exact; forms
 * are labelled with the currency code.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { serverTest } from "../../helpers/gateway.ts";
import { holderSession, memberSession, operatorSession } from "../../helpers/console_roles.ts";
import { chatWith, startMemberArea } from "../../helpers/member_area.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** A page's visible text: no script or style, tags as spaces, entities decoded. */
function visibleText(html: string): string {
  return html.replace(/<(script|style)\b[\s\S]*?<\/\1>/g, " ").replace(/<[^>]*>/g, " ")
    .replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'").replaceAll("&amp;", "&");
}

/**
 * Decimal numbers of 3 or more decimals on the page without the currency's symbol before them:
 * money shown some other way (a time's `:00.000` is no amount).
 */
function bareAmounts(html: string, symbol: string): string[] {
  const text = visibleText(html);
  const bare: string[] = [];
  for (const match of text.matchAll(/\d[\d,]*\.\d{3,}/g)) {
    const before = text[match.index - 1] ?? "";
    if (before === symbol || before === ":" || before === ".") continue;
    bare.push(text.slice(Math.max(0, match.index - 40), match.index + match[0].length + 10));
  }
  return bare;
}

Deno.test("bareAmounts() finds money without a currency and passes money with one", () => {
  assertEquals(bareAmounts("<td>0.000030</td><td>€1.235</td>", "€").length, 1);
  assertEquals(bareAmounts("<p>Balance 12.500000 left</p>", "€").length, 1);
  assertEquals(bareAmounts("<td>< €0.001</td><td>-€2.000</td><p>at 10:00:00.000Z</p>", "€"), []);
});

Deno.test(
  "console money: the operator sets the currency and precision on the Money page; audited; bad input 400; other sessions refused",
  serverTest,
  async () => {
    await using area = await startMemberArea();
    const { gw } = area;
    const operator = await operatorSession(gw);
    const page = await (await operator.get("/console/money")).text();
    assertOk(page.includes('<a href="/console/money" aria-current="page">Money</a>'), "in the nav");
    assertOk(page.includes('<option value="USD" selected="">USD ($)</option>'), "USD by default");
    assertOk(page.includes("Not set yet"), "the defaults are in force");

    const saved = await operator.post("/console/money", { currency: "eur", decimals: "3" });
    await saved.body?.cancel();
    assertEquals([saved.status, saved.headers.get("location")], [303, "/console/money"]);
    const setting = (await gw.admin("GET", "/admin/settings/money")).body;
    assertEquals([setting.currency, setting.decimals, setting.source], ["EUR", 3, "setting"]);
    const after = await (await operator.get("/console/money")).text();
    assertOk(after.includes('<option value="EUR" selected="">EUR (€)</option>'), "prefilled");
    assertOk(after.includes('<option value="3" selected="">3</option>'));
    assertOk(
      after.includes('<span class="money" title="exactly €1.234567">€1.235</span>'),
      "the example amount, rounded, exact in its title",
    );
    assertOk(after.includes("€0.000015 per character"), "the example price, exact");

    const bad: Array<[Record<string, string>, Record<string, unknown>]> = [
      [{ currency: "XYZ", decimals: "3" }, { currency: "XYZ", decimals: 3 }],
      [{ currency: "EUR", decimals: "9" }, { currency: "EUR", decimals: 9 }],
      [{ currency: "EUR", decimals: "two" }, { currency: "EUR", decimals: "two" }],
    ];
    for (const [fields, body] of bad) {
      const api = await gw.admin("PATCH", "/admin/settings/money", body);
      assertEquals(api.status, 400, JSON.stringify(api.body));
      const response = await operator.post("/console/money", fields);
      const html = await response.text();
      assertEquals(response.status, 400, JSON.stringify(fields));
      const message = api.body.error.message.replaceAll("'", "&#39;");
      assertOk(html.includes(message), `${JSON.stringify(fields)}: ${api.body.error.message}`);
    }
    const unchanged = (await gw.admin("GET", "/admin/settings/money")).body;
    assertEquals([unchanged.currency, unchanged.decimals], ["EUR", 3]);

    const audit = (await gw.admin("GET", "/admin/audit?target_kind=setting&limit=100")).body
      .data as Json[];
    const consoleChanges = audit.filter((record) => record.actor.startsWith("console:"));
    assertEquals(
      consoleChanges.map((record) => `${record.method} ${record.route} ${record.status}`),
      [
        "PATCH /admin/settings/money 400",
        "PATCH /admin/settings/money 400",
        "PATCH /admin/settings/money 400",
        "PATCH /admin/settings/money 200",
      ].slice(4 - consoleChanges.length),
    );
    const change = consoleChanges.at(-1);
    assertEquals(change.target, { kind: "setting", id: "money" });
    assertEquals([change.before.currency, change.after.currency, change.after.decimals], [
      "USD",
      "EUR",
      3,
    ]);

    const holder = await holderSession(gw);
    const member = await memberSession(gw, "max@example.com");
    for (const client of [holder, member]) {
      const refused = await client.get("/console/money");
      await refused.body?.cancel();
      assertOk(refused.status === 403 || refused.status === 303, String(refused.status));
      const posted = await client.post("/console/money", { currency: "JPY", decimals: "2" });
      await posted.body?.cancel();
      assertOk(posted.status === 403 || posted.status === 303, String(posted.status));
    }
    assertEquals((await gw.admin("GET", "/admin/settings/money")).body.currency, "EUR");
  },
);

/** Pages with no amount on them here (an empty task list; channels, groups, hooks, audit). */
const NO_MONEY = new Set([
  "/console/tasks",
  "/console/channels",
  "/console/groups",
  "/console/webhooks",
  "/console/audit",
]);

Deno.test(
  "console money: every page of the operator, a member and a key holder shows amounts in the chosen currency, none bare",
  serverTest,
  async () => {
    await using area = await startMemberArea();
    const { gw } = area;
    assertEquals(
      (await gw.admin("PATCH", "/admin/settings/money", { currency: "EUR", decimals: 3 })).status,
      200,
    );
    const key = (await gw.admin("POST", "/admin/keys", {
      name: "app",
      account_id: area.accountId,
      spend_limits: { day: 2_500_000 },
    })).body;
    for (let round = 0; round < 2; round++) {
      assertEquals((await chatWith(gw, key.key)).status, 200);
    }
    await gw.settle();
    const requestId = (await gw.admin("GET", `/admin/requests?key=${key.id}`)).body.data[0].id;
    const batch = (await gw.admin("POST", "/admin/redemption-batches", {
      name: "odd amount",
      amount: 1_234_500,
      count: 2,
    })).body;
    const operator = await operatorSession(gw);
    const owner = await area.member("kim@example.com", "owner");
    const holder = await holderSession(gw);

    const pages: Array<[{ get(path: string): Promise<Response> }, string]> = [
      ...[
        "/console",
        "/console/accounts",
        `/console/accounts/${area.accountId}`,
        `/console/accounts/${area.accountId}?tab=wallet`,
        `/console/accounts/${area.accountId}?tab=keys`,
        "/console/keys",
        `/console/keys/${key.id}`,
        `/console/keys/${key.id}?tab=usage`,
        `/console/keys/${key.id}?tab=ledger`,
        "/console/requests",
        `/console/requests/${requestId}`,
        "/console/tasks",
        "/console/models",
        "/console/models/gpt-test",
        "/console/models?model=gpt-test&input_tokens=1234&output_tokens=5",
        "/console/redemption-codes",
        `/console/redemption-codes/${batch.batch?.id ?? batch.id}`,
        "/console/money",
        "/console/channels",
        "/console/groups",
        "/console/webhooks",
        "/console/audit",
      ].map((path) => [operator, path] as [typeof operator, string]),
      ...[
        "/console/account",
        "/console/account/keys",
        `/console/account/keys/${key.id}`,
        "/console/account/usage",
        `/console/account/requests/${requestId}`,
        "/console/account/wallet",
        "/console/account/models",
      ].map((path) => [owner, path] as [typeof owner, string]),
      [holder, "/console/me"],
    ];
    for (const [client, path] of pages) {
      const response = await client.get(path);
      const html = await response.text();
      assertEquals(response.status, 200, `${path}: ${html.slice(-300)}`);
      assertEquals(
        bareAmounts(html, "€"),
        [],
        `${path} shows money without its currency: ${JSON.stringify(bareAmounts(html, "€"))}`,
      );
      if (!NO_MONEY.has(path)) assertOk(html.includes("€"), `${path}: an amount in euros`);
      assertOk(!/\$\d/.test(visibleText(html)), `${path}: no dollar amount left`);
    }

    const keyTab = async (tab: string) =>
      await (await operator.get(`/console/keys/${key.id}${tab}`)).text();
    const keyPage = await keyTab("");
    assertOk(keyPage.includes(` of <span class="money">€2.500</span>`), "the day cap");
    const usage = await keyTab("?tab=usage");
    assertOk(usage.includes("&lt; €0.001</span>"), "a request's cost too small to show");
    assertOk(/title="exactly €0\.0000\d+"/.test(usage), "…with its exact cost in its title");
    const ledger = await keyTab("?tab=ledger");
    assertOk(ledger.includes('label for="amount">Amount (EUR)</label>'), "the credit form");
    const settings = await keyTab("?tab=settings");
    assertOk(settings.includes("Spend cap per day (EUR)") && settings.includes('value="2.5"'));
    const codes = await (await operator.get("/console/redemption-codes")).text();
    assertOk(codes.includes('title="exactly €1.2345">€1.235</span>'), "rounded half away from 0");
    const models = await (await operator.get("/console/models")).text();
    assertOk(models.includes("input €1.000, cached €0.500, output €2.000 per million tokens"));
    const receipt = await (await operator.get(`/console/requests/${requestId}`)).text();
    assertOk(receipt.includes("<dt>Formula (units)</dt>"), "the formula's operands are units");
    assertOk(receipt.includes("units, the formula&#39;s result)"), "the result in units, labelled");
    const wallet = await (await owner.get("/console/account/wallet")).text();
    assertOk(wallet.includes('id="balance"><span class="money" title="exactly €'), "balance");
  },
);
