/**
 * The console and a key's IP allowlist: the New key and edit forms take one range per line or
 * comma-separated, a bad range is the form's 400, the detail page shows the list, and a key
 * holder signs in (and stays signed in) only from an allowed address.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest, startTestGateway } from "../../helpers/gateway.ts";
import { consoleClient } from "../../helpers/console_client.ts";

Deno.test(
  "console keys: the IP allowlist field creates, shows, refuses a bad range, and clears",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const client = consoleClient(gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
    const form = await (await client.get("/console/keys/new")).text();
    assertOk(form.includes('<textarea id="ip_allowlist" name="ip_allowlist"'), "the field");

    const bad = await client.post("/console/keys", {
      name: "bad",
      ip_allowlist: "203.0.113.0/24\n10.0.0.1/8",
    });
    const html = await bad.text();
    assertEquals(bad.status, 400);
    assertOk(html.includes("ip_allowlist.1") && html.includes("did you mean 10.0.0.0/8?"), html);
    assertEquals((await gw.admin("GET", "/admin/keys")).body.data.length, 0, "nothing created");

    const created = await client.post("/console/keys", {
      name: "office",
      ip_allowlist: "203.0.113.0/24\r\n2001:db8::/32, 10.1.2.3\n",
    });
    await created.body?.cancel();
    assertEquals(created.status, 303);
    const id = created.headers.get("location")!.match(/\/console\/keys\/(key_\w+)\//)![1];
    const view = (await gw.admin("GET", `/admin/keys/${id}`)).body;
    assertEquals(view.ip_allowlist, ["203.0.113.0/24", "2001:db8::/32", "10.1.2.3"]);
    const detail = await (await client.get(`/console/keys/${id}`)).text();
    assertOk(detail.includes("203.0.113.0/24, 2001:db8::/32, 10.1.2.3"), "the facts list it");
    const settings = await (await client.get(`/console/keys/${id}?tab=settings`)).text();
    assertOk(
      settings.includes("203.0.113.0/24\n2001:db8::/32\n10.1.2.3</textarea>"),
      "the edit form",
    );

    const edit = (ip_allowlist: string) =>
      client.post(`/console/keys/${id}/edit`, { name: "office", ip_allowlist });
    const refused = await edit("nope");
    assertEquals(refused.status, 400);
    await refused.body?.cancel();
    assertEquals((await gw.admin("GET", `/admin/keys/${id}`)).body.ip_allowlist.length, 3);
    await (await edit("")).body?.cancel();
    assertEquals((await gw.admin("GET", `/admin/keys/${id}`)).body.ip_allowlist, null);
  },
);

Deno.test(
  "console: a key holder signs in only from an address its IP allowlist includes",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const outside = await gw.createKey({ name: "elsewhere", ip_allowlist: ["10.0.0.0/8"] });
    const client = consoleClient(gw.url);
    const response = await client.signIn(outside.key);
    const html = await response.text();
    assertEquals(response.status, 403);
    assertOk(html.includes("127.0.0.1") && html.includes("allowlist"), html);

    // Signed in from an allowed address, the session ends there once the list leaves it out.
    const inside = await gw.createKey({ name: "here", ip_allowlist: ["127.0.0.1"] });
    const holder = consoleClient(gw.url);
    await (await holder.signIn(inside.key)).body?.cancel();
    const me = await holder.get("/console/me");
    await me.body?.cancel();
    assertEquals(me.status, 200);
    await gw.admin("PATCH", `/admin/keys/${inside.id}`, { ip_allowlist: ["10.0.0.0/8"] });
    const after = await holder.get("/console/me");
    await after.body?.cancel();
    assertEquals([after.status, after.headers.get("location")?.startsWith("/console/sign-in")], [
      303,
      true,
    ]);
  },
);
