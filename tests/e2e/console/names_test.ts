/**
 * Names instead of ids in the operator's console, over HTTP against a real gateway: requests,
 * request detail, audit, keys, tasks, webhooks and the key's ledger show keys, accounts, channels
 * and models by name linked to their pages, a deleted key as its id "(deleted)"; the filters offer
 * datalists of names and take a name or an id (an unknown or shared name is a 400); Requests has
 * token, channel and error columns; a key holder gets tokens and errors but no channel or links.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { postJson, serverTest } from "../../helpers/gateway.ts";
import { operatorSession } from "../../helpers/console_roles.ts";
import { consoleClient } from "../../helpers/console_client.ts";
import { MODEL, setupChat } from "../../helpers/text_setup.ts";

const ask = { model: MODEL, messages: [{ role: "user", content: "hi" }] };

async function chatWith(url: string, key: string, body: object = ask): Promise<string> {
  const response = await postJson({ url }, "/v1/chat/completions", key, body);
  await response.body?.cancel();
  return response.headers.get("x-request-id")!;
}

async function page(response: Promise<Response>): Promise<{ status: number; html: string }> {
  const answer = await response;
  return { status: answer.status, html: await answer.text() };
}

/** The `<tr>` of the table row that holds `text`. */
function rowOf(html: string, text: string): string {
  const at = html.indexOf(text);
  assertOk(at >= 0, `${text} on the page`);
  return html.slice(html.lastIndexOf("<tr", at), html.indexOf("</tr>", at));
}

const link = (href: string, name: string) => `<a href="${href}">${name}</a>`;

Deno.test(
  "console names: requests, detail, audit, keys, webhooks and the ledger show names linked; a deleted key says so",
  serverTest,
  async () => {
    await using s = await setupChat();
    const account = await s.gw.admin("POST", "/admin/accounts", {
      name: "Acme Corp",
      balance: 5_000_000,
    });
    assertEquals(account.status, 201);
    const alice = await s.gw.createKey({ name: "alice-prod", account_id: account.body.id });
    const gone = await s.gw.createKey({ name: "gone-key", balance: 1_000_000 });
    const aliceAsked = await chatWith(s.gw.url, alice.key);
    const refused = await chatWith(s.gw.url, alice.key, { ...ask, model: "nope" });
    const goneAsked = await chatWith(s.gw.url, gone.key);
    await s.gw.settle();
    assertEquals((await s.gw.admin("DELETE", `/admin/keys/${gone.id}`)).status, 204);
    const record = (await s.gw.admin("GET", `/admin/requests/${aliceAsked}`)).body;
    const channelId = record.channel_id as string;
    const hook = await s.gw.admin("POST", "/admin/webhooks", {
      url: "https://example.com/hooks",
      events: ["task.succeeded"],
      key_id: alice.id,
    });
    assertEquals(hook.status, 201, JSON.stringify(hook.body));
    const client = await operatorSession(s.gw);

    const list = await page(client.get("/console/requests"));
    assertEquals(list.status, 200);
    const aliceRow = rowOf(list.html, aliceAsked);
    assertOk(aliceRow.includes(link(`/console/keys/${alice.id}`, "alice-prod")), aliceRow);
    assertOk(aliceRow.includes(link(`/console/channels/${channelId}`, "primary")), aliceRow);
    assertOk(aliceRow.includes(`/console/models/${MODEL}`), "the model linked");
    assertOk(
      aliceRow.includes(`${record.input_tokens} / ${record.output_tokens}`),
      `tokens in the row: ${aliceRow}`,
    );
    for (const header of ["Channel", "Tokens in / out", "Error"]) {
      assertOk(list.html.includes(`<th scope="col">${header}</th>`), header);
    }
    const refusedRecord = (await s.gw.admin("GET", `/admin/requests/${refused}`)).body;
    assertOk(
      rowOf(list.html, refused).includes(`<code>${refusedRecord.error_code}</code>`),
      "the error code",
    );
    assertOk(rowOf(list.html, refused).includes("(not in the catalog)"), "an unknown model");
    const goneRow = rowOf(list.html, goneAsked);
    assertOk(goneRow.includes(`<code>${gone.id}</code> <span class="muted">(deleted)</span>`));
    assertOk(!goneRow.includes(`/console/keys/${gone.id}`), "no link to a deleted key");
    assertOk(!list.html.includes(`>${alice.id}</a>`), "no bare key id as a link text");

    for (const datalist of ["pick-key", "pick-account", "pick-channel", "pick-model"]) {
      assertOk(list.html.includes(`<datalist id="${datalist}">`), datalist);
      assertOk(list.html.includes(`list="${datalist}"`), `a field uses ${datalist}`);
    }
    assertOk(list.html.includes('<option value="alice-prod">'), "key names offered");
    assertOk(list.html.includes('<option value="Acme Corp">'), "account names offered");
    assertOk(list.html.includes('<option value="primary">'), "channel names offered");
    assertOk(!list.html.includes(alice.key), "never a secret");

    const detail = await page(client.get(`/console/requests/${aliceAsked}`));
    assertEquals(detail.status, 200);
    assertOk(detail.html.includes(link(`/console/keys/${alice.id}`, "alice-prod")), "key");
    assertOk(detail.html.includes(link(`/console/accounts/${account.body.id}`, "Acme Corp")));
    assertOk(detail.html.includes(link(`/console/channels/${channelId}`, "primary")), "channel");

    const audit = await page(client.get("/console/audit?target_kind=key"));
    assertOk(
      audit.html.includes(`key ${link(`/console/keys/${alice.id}`, "alice-prod")}`),
      "the audit target by name",
    );
    assertOk(audit.html.includes(`<code>${gone.id}</code> <span class="muted">(deleted)`));
    assertOk(audit.html.includes('<datalist id="pick-target">'), "target picker");
    const aliceAudit = await page(client.get("/console/audit?target_id=alice-prod"));
    assertEquals(aliceAudit.status, 200);
    assertOk(!aliceAudit.html.includes(gone.id), "filtered to alice-prod's changes by name");
    assertOk(aliceAudit.html.includes(`/admin/audit?target_id=${alice.id}`), "curl with the id");

    const keys = await page(client.get("/console/keys"));
    assertOk(
      rowOf(keys.html, `>alice-prod<`).includes(
        link(`/console/accounts/${account.body.id}`, "Acme Corp"),
      ),
      "the key's account by name",
    );

    // The key's page in its tabs: the ledger and the recent requests.
    const keyPage = { html: "" };
    for (const tab of ["ledger", "usage"]) {
      keyPage.html += (await page(client.get(`/console/keys/${alice.id}?tab=${tab}`))).html;
    }
    assertOk(
      keyPage.html.includes(`<a href="/console/requests/${aliceAsked}"><code>${aliceAsked}</code>`),
      "a ledger entry's request linked",
    );

    const hooks = await page(client.get("/console/webhooks"));
    assertOk(hooks.html.includes(`key ${link(`/console/keys/${alice.id}`, "alice-prod")}`));
    const hookPage = await page(client.get(`/console/webhooks/${hook.body.id}`));
    assertOk(hookPage.html.includes(link(`/console/keys/${alice.id}`, "alice-prod")));
    assertOk(hookPage.html.includes('list="pick-edit-key_id"'), "the edit form's key picker");
    const newHook = await page(client.get("/console/webhooks/new"));
    assertOk(newHook.html.includes('<datalist id="pick-new-key_id">'), "the key picker");
    assertOk(newHook.html.includes(`<option value="${alice.id}">alice-prod · `), "by id, named");

    const tasks = await page(client.get("/console/tasks"));
    assertOk(tasks.html.includes('<datalist id="pick-key">'), "task key picker");
    assertOk(tasks.html.includes('<datalist id="pick-model">'), "task model picker");
    assertEquals((await page(client.get("/console/tasks?key=alice-prod"))).status, 200);
    assertEquals((await page(client.get("/console/tasks?key=nobody"))).status, 400);
  },
);

Deno.test(
  "console names: request filters take a name or an id; an unknown or shared name is a 400",
  serverTest,
  async () => {
    await using s = await setupChat();
    const account = (await s.gw.admin("POST", "/admin/accounts", {
      name: "Acme Corp",
      balance: 5_000_000,
    })).body;
    const alice = await s.gw.createKey({ name: "alice-prod", account_id: account.id });
    const aliceAsked = await chatWith(s.gw.url, alice.key);
    const ownAsked = await chatWith(s.gw.url, s.key);
    await s.gw.createKey({ name: "twin", balance: 1 });
    await s.gw.createKey({ name: "twin", balance: 1 });
    await s.gw.settle();
    const client = await operatorSession(s.gw);

    for (
      const query of [
        "key=alice-prod",
        `key=${alice.id}`,
        "account=Acme+Corp",
        `account=${account.id}`,
      ]
    ) {
      const list = await page(client.get(`/console/requests?${query}`));
      assertEquals(list.status, 200, query);
      assertOk(list.html.includes(aliceAsked) && !list.html.includes(ownAsked), query);
    }
    const byName = await page(client.get("/console/requests?key=alice-prod"));
    assertOk(byName.html.includes('value="alice-prod"'), "the name stays in the field");
    assertOk(byName.html.includes(`/admin/requests?key=${alice.id}`), "the curl has the id");
    const byChannel = await page(client.get("/console/requests?channel=primary"));
    assertOk(byChannel.html.includes(aliceAsked) && byChannel.html.includes(ownAsked));

    const unknown = await page(client.get("/console/requests?key=nobody"));
    assertEquals(unknown.status, 400);
    assertOk(unknown.html.includes("names no key"), unknown.html);
    const shared = await page(client.get("/console/requests?key=twin"));
    assertEquals(shared.status, 400);
    assertOk(shared.html.includes("is the name of 2 keys"), shared.html);
    assertEquals((await page(client.get("/console/requests?account=Nobody+Inc"))).status, 400);
    const twins = await page(client.get("/console/requests"));
    assertOk(!twins.html.includes('<option value="twin">'), "a shared name is offered by id");

    const csv = await client.get("/console/requests/export?key=alice-prod&format=csv");
    const csvText = await csv.text();
    assertOk(csvText.includes(aliceAsked) && !csvText.includes(ownAsked), "export by name");
  },
);

Deno.test(
  "console names: a key holder's requests show tokens and errors, no channel, no links to keys",
  serverTest,
  async () => {
    await using s = await setupChat();
    const asked = await chatWith(s.gw.url, s.key);
    const refused = await chatWith(s.gw.url, s.key, { ...ask, model: "nope" });
    await s.gw.settle();
    const record = (await s.gw.admin("GET", `/admin/requests/${asked}`)).body;
    const refusedRecord = (await s.gw.admin("GET", `/admin/requests/${refused}`)).body;
    const client = consoleClient(s.gw.url);
    await (await client.signIn(s.key)).body?.cancel();
    const list = await page(client.get("/console/requests"));
    assertEquals(list.status, 200);
    assertOk(rowOf(list.html, asked).includes(`${record.input_tokens} / ${record.output_tokens}`));
    assertOk(rowOf(list.html, refused).includes(refusedRecord.error_code));
    assertOk(!list.html.includes('<th scope="col">Channel</th>'), "no channel column");
    assertOk(!list.html.includes("/console/keys/") && !list.html.includes("/console/channels/"));
    assertOk(!list.html.includes("<datalist"), "no pickers of others' names");
    assertOk(!list.html.includes('action="/console/search"'), "no search box");
    assertEquals((await page(client.get("/console/search?q=primary"))).status, 403);
  },
);
