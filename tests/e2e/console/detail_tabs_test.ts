/**
 * The key and account pages in tabs that are links (`?tab=`) over HTTP: each tab renders only its
 * own sections, a form comes back to its tab (or shows it again with the problem), an unknown tab
 * is a 400 page naming the tabs; the channel page's table of contents points at its sections.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest } from "../../helpers/gateway.ts";
import { consoleClient } from "../../helpers/console_client.ts";
import { setupChat } from "../../helpers/text_setup.ts";

async function page(client: ReturnType<typeof consoleClient>, path: string) {
  const response = await client.get(path);
  return { status: response.status, html: await response.text() };
}

/** The ids of the `<h2>`s on a page: which sections it rendered. */
function sections(html: string): string[] {
  return [...html.matchAll(/<h2 id="([\w-]+)"/g)].map((match) => match[1]);
}

function currentTab(html: string): string | undefined {
  return html.match(/<a href="[^"]*" aria-current="page">([^<]+)<\/a>/g)
    ?.map((link) => link.replace(/<[^>]+>/g, ""))
    .find((label) => !["Keys", "Accounts"].includes(label));
}

Deno.test(
  "console key page: tabs as links render one part each; forms come back to their tab; an unknown tab is a 400",
  serverTest,
  async () => {
    await using s = await setupChat();
    const client = consoleClient(s.gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
    const path = `/console/keys/${s.keyId}`;

    const key = await page(client, path);
    assertEquals(key.status, 200);
    for (const [tab, label] of [["usage", "Usage"], ["ledger", "Ledger and credit"]]) {
      assertOk(key.html.includes(`<a href="${path}?tab=${tab}">${label}</a>`), tab);
    }
    assertEquals(currentTab(key.html), "Key");
    assertEquals(sections(key.html), ["facts-heading"]);
    assertOk(key.html.includes("Σ entries = balance ✓"), "the ledger check with the facts");
    const expected: Record<string, string[]> = {
      usage: ["usage-heading", "requests-heading", "tasks-heading"],
      ledger: ["credit-heading", "ledger-heading"],
      settings: ["edit-heading", "rotate-heading", "delete-heading"],
      sdk: ["snippets-heading"],
    };
    for (const [tab, headings] of Object.entries(expected)) {
      const shown = await page(client, `${path}?tab=${tab}`);
      assertEquals(shown.status, 200, tab);
      assertEquals(sections(shown.html), headings, tab);
    }

    const credit = await client.post(`${path}/credit`, { amount: "1000", note: "tabs" });
    await credit.body?.cancel();
    assertEquals([credit.status, credit.headers.get("location")], [303, `${path}?tab=ledger`]);
    const edit = await client.post(`${path}/edit`, { name: "renamed" });
    await edit.body?.cancel();
    assertEquals([edit.status, edit.headers.get("location")], [303, `${path}?tab=settings`]);
    const enabled = await client.post(`${path}/enabled`, { enabled: "true" });
    await enabled.body?.cancel();
    assertEquals([enabled.status, enabled.headers.get("location")], [303, path]);

    const refused = await client.post(`${path}/edit`, { name: "renamed", rpm: "many" });
    const again = await refused.text();
    assertEquals(refused.status, 400);
    assertEquals(currentTab(again), "Settings", "the form's tab again, with the problem");
    assertOk(again.includes('role="alert"') && sections(again).includes("edit-heading"));

    const unknown = await page(client, `${path}?tab=secrets`);
    assertEquals(unknown.status, 400);
    assertOk(
      unknown.html.includes("No tab &#39;secrets&#39; here") ||
        unknown.html.includes("No tab 'secrets' here"),
      unknown.html,
    );
    assertOk(unknown.html.includes("key, usage, ledger, settings, sdk"), "names the tabs");
  },
);

Deno.test(
  "console account page: tabs as links; a credit comes back to the wallet tab; the channel page has a table of contents",
  serverTest,
  async () => {
    await using s = await setupChat();
    const client = consoleClient(s.gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
    const created = await s.gw.admin("POST", "/admin/accounts", { name: "Tabs", balance: 1000 });
    const path = `/console/accounts/${created.body.id}`;
    const expected: Record<string, string[]> = {
      "": ["facts-heading", "wallet-heading"],
      "?tab=wallet": ["credit-heading", "ledger-heading"],
      "?tab=keys": ["keys-heading"],
      "?tab=settings": ["edit-heading"],
    };
    for (const [query, headings] of Object.entries(expected)) {
      const shown = await page(client, `${path}${query}`);
      assertEquals(shown.status, 200, query);
      assertEquals(sections(shown.html), headings, query);
    }
    const credit = await client.post(`${path}/credit`, { amount: "500", note: "tabs" });
    await credit.body?.cancel();
    assertEquals(credit.headers.get("location"), `${path}?tab=wallet`);
    assertEquals((await page(client, `${path}?tab=everything`)).status, 400);

    const channelId = (await s.gw.admin("GET", "/admin/channels")).body.data[0].id;
    const channel = await page(client, `/console/channels/${channelId}`);
    const anchors = [...channel.html.matchAll(/<a href="#([\w-]+)">/g)].map((match) => match[1])
      .filter((id) => id !== "main");
    assertOk(anchors.length >= 6, anchors.join());
    for (const id of anchors) assertOk(channel.html.includes(`id="${id}"`), `#${id} exists`);
  },
);
