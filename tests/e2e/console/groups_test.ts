/**
 * The console's Groups page (price tiers) over HTTP: a group added, changed and deleted from the
 * forms follows at the admin API and is audited as PUT/DELETE /admin/groups/:name by the console
 * session; the list shows each group's multiplier and its number of accounts (and the groups
 * accounts use without a record); bad input is answered 400 on the form with the API's own
 * message, changing nothing; key-holder and member sessions are refused (403).
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { serverTest, startTestGateway, type TestGateway } from "../../helpers/gateway.ts";
import { holderSession, memberSession, operatorSession } from "../../helpers/console_roles.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

function htmlText(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;").replaceAll("'", "&#39;");
}

async function accountIn(gw: TestGateway, name: string, group?: string) {
  const created = await gw.admin("POST", "/admin/accounts", { name, ...(group ? { group } : {}) });
  assertEquals(created.status, 201, JSON.stringify(created.body));
}

async function consoleAudit(gw: TestGateway): Promise<Json[]> {
  const audit = (await gw.admin("GET", "/admin/audit?limit=1000")).body.data as Json[];
  return audit.filter((record) => record.actor.startsWith("console:"));
}

Deno.test(
  "console groups: add, change and delete a group from the forms; the list counts its accounts; audited as the admin routes",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const client = await operatorSession(gw);
    await accountIn(gw, "a", "vip");
    await accountIn(gw, "b", "vip");
    await accountIn(gw, "c");

    const added = await client.post("/console/groups", {
      name: "vip",
      price_multiplier: "0.8",
      description: "good customers",
    });
    await added.body?.cancel();
    assertEquals([added.status, added.headers.get("location")], [303, "/console/groups"]);
    const record = (await gw.admin("GET", "/admin/groups/vip")).body;
    assertEquals([record.price_multiplier, record.description], [0.8, "good customers"]);

    const list = await (await client.get("/console/groups")).text();
    assertOk(list.includes('<a href="/console/groups/vip">vip</a>'), "the group links to its page");
    assertOk(list.includes("<td>×0.8</td>"), "its multiplier");
    assertOk(list.includes("<td>good customers</td>"), "its description");
    assertOk(list.includes('<a href="/console/accounts?group=vip">2</a>'), "its 2 accounts");
    assertOk(list.includes('<a href="/console/accounts?group=default">1</a>'), "default's");
    assertOk(list.includes("×1 (no record)"), "a group in use without a record");
    assertOk(
      list.includes('<a href="/console/groups" aria-current="page">Groups</a>'),
      "in the operator's navigation",
    );

    const accountId = (await gw.admin("GET", "/admin/accounts?group=vip")).body.data[0].id;
    const accountPage = await (await client.get(`/console/accounts/${accountId}`)).text();
    assertOk(
      accountPage.includes('<a href="/console/groups/vip">vip</a> (prices ×0.8)'),
      "an account's page links its group and says its multiplier",
    );
    const page = await (await client.get("/console/groups/vip")).text();
    assertOk(page.includes('value="0.8"') && page.includes('value="good customers"'), "prefilled");
    const changed = await client.post("/console/groups/vip", {
      price_multiplier: "0.6",
      description: "resellers",
    });
    await changed.body?.cancel();
    assertEquals([changed.status, changed.headers.get("location")], [303, "/console/groups/vip"]);
    const after = (await gw.admin("GET", "/admin/groups/vip")).body;
    assertEquals([after.price_multiplier, after.description], [0.6, "resellers"]);

    const unticked = await client.post("/console/groups/vip/delete", {});
    assertEquals(unticked.status, 400);
    assertOk((await unticked.text()).includes("Tick the box"));
    assertEquals((await gw.admin("GET", "/admin/groups/vip")).status, 200, "not deleted");
    const deleted = await client.post("/console/groups/vip/delete", { confirm: "yes" });
    await deleted.body?.cancel();
    assertEquals([deleted.status, deleted.headers.get("location")], [303, "/console/groups"]);
    assertEquals((await gw.admin("GET", "/admin/groups/vip")).status, 404);
    const still = await (await client.get("/console/groups/vip")).text();
    assertOk(still.includes("×1 (no record)"), "its accounts are still in it, priced ×1");
    const unknown = await client.get("/console/groups/nobody");
    await unknown.body?.cancel();
    assertEquals(unknown.status, 404, "neither a record nor an account");

    // A name that is not plain ASCII links to its own page and is changed there.
    const gold = await client.post("/console/groups", { name: "金牌:1", price_multiplier: "1.25" });
    await gold.body?.cancel();
    assertEquals(gold.status, 303);
    const goldPath = `/console/groups/${encodeURIComponent("金牌:1")}`;
    assertOk((await (await client.get("/console/groups")).text()).includes(`href="${goldPath}"`));
    const goldChanged = await client.post(goldPath, { price_multiplier: "2" });
    await goldChanged.body?.cancel();
    assertEquals([goldChanged.status, goldChanged.headers.get("location")], [303, goldPath]);
    const goldRecord = await gw.admin("GET", `/admin/groups/${encodeURIComponent("金牌:1")}`);
    assertEquals(goldRecord.body.price_multiplier, 2);
    const goldDeleted = await client.post(`${goldPath}/delete`, { confirm: "yes" });
    await goldDeleted.body?.cancel();
    assertEquals(goldDeleted.status, 303);

    const audit = (await consoleAudit(gw))
      .filter((entry) => entry.target.kind === "group" && entry.target.id === "vip");
    assertEquals(
      audit.map((entry) => `${entry.method} ${entry.route} ${entry.status}`).reverse(),
      [
        "PUT /admin/groups/:name 200",
        "PUT /admin/groups/:name 200",
        "DELETE /admin/groups/:name 204",
      ],
    );
    const [removal, change, creation] = audit;
    assertEquals([creation.before, creation.after.price_multiplier], [null, 0.8]);
    assertEquals([change.before.price_multiplier, change.after.price_multiplier], [0.8, 0.6]);
    assertEquals([removal.before.description, removal.after], ["resellers", null]);
    for (const entry of audit) {
      assertEquals(entry.target.id, "vip");
      assertOk(/^console:[0-9a-f]{16}$/.test(entry.actor), entry.actor);
    }
  },
);

Deno.test(
  "console groups: a bad multiplier or name is answered 400 on the form with the API's message, changing nothing",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const client = await operatorSession(gw);
    assertEquals(
      (await gw.admin("PUT", "/admin/groups/vip", { price_multiplier: 0.8 })).status,
      200,
    );
    const auditBefore = (await consoleAudit(gw)).length;

    const bad: Array<[string, unknown]> = [
      ["0", 0],
      ["-1", -1],
      ["11", 11],
      ["1.23456", 1.23456],
      ["lots", "lots"],
    ];
    for (const [typed, sent] of bad) {
      const api = await gw.admin("PUT", "/admin/groups/other", { price_multiplier: sent });
      assertEquals(api.status, 400, JSON.stringify(api.body));
      const message = htmlText(api.body.error.message);
      const added = await client.post("/console/groups", {
        name: "other",
        price_multiplier: typed,
      });
      const addedHtml = await added.text();
      assertEquals(added.status, 400, typed);
      assertOk(addedHtml.includes(message), `${typed}: the API's message ${message}`);
      assertOk(addedHtml.includes(`value="${typed}"`), "what was typed stays in the form");
      assertOk(addedHtml.includes('<button type="submit">Save group</button>'), "the form again");
      const changed = await client.post("/console/groups/vip", { price_multiplier: typed });
      assertEquals(changed.status, 400, typed);
      assertOk((await changed.text()).includes(message), `${typed}: the API's message`);
    }
    const badName = await client.post("/console/groups", { name: "a b", price_multiplier: "1" });
    assertEquals(badName.status, 400);
    assertOk((await badName.text()).includes("must be a group name"));
    const noName = await client.post("/console/groups", { name: "", price_multiplier: "1" });
    assertEquals(noName.status, 400);
    await noName.body?.cancel();

    assertEquals((await gw.admin("GET", "/admin/groups/vip")).body.price_multiplier, 0.8);
    assertEquals(
      (await gw.admin("GET", "/admin/groups")).body.data.map((group: Json) => group.name),
      ["vip"],
    );
    const changes = (await consoleAudit(gw)).slice(0, -auditBefore || undefined)
      .filter((record) => record.status < 400);
    assertEquals(changes, [], "no change recorded");
  },
);

Deno.test(
  "console groups: a key holder's and a member's sessions are refused every group page and change, and a form without the session's CSRF token (403)",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    assertEquals(
      (await gw.admin("PUT", "/admin/groups/vip", { price_multiplier: 0.8 })).status,
      200,
    );
    const holder = await holderSession(gw);
    const member = await memberSession(gw, "mo@example.com");
    for (const client of [holder, member]) {
      for (const path of ["/console/groups", "/console/groups/vip"]) {
        const response = await client.get(path);
        await response.body?.cancel();
        assertEquals(response.status, 403, path);
      }
    }
    const me = await (await holder.get("/console/me")).text();
    assertOk(!me.includes('href="/console/groups"'), "no Groups link for a holder");
    const changes: Array<[string, Record<string, string>]> = [
      ["/console/groups", { name: "vip", price_multiplier: "0.1" }],
      ["/console/groups/vip", { price_multiplier: "0.1" }],
      ["/console/groups/vip/delete", { confirm: "yes" }],
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
    assertEquals((await gw.admin("GET", "/admin/groups/vip")).body.price_multiplier, 0.8);
  },
);
