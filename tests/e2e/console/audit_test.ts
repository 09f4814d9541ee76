/** The console's audit page over HTTP: filters, paging, and a bad filter answered 400. */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest } from "../../helpers/gateway.ts";
import { consoleClient } from "../../helpers/console_client.ts";
import { setupChat } from "../../helpers/text_setup.ts";

Deno.test(
  "console audit: lists the changes with filters and paging; a bad filter is a 400",
  serverTest,
  async () => {
    await using s = await setupChat();
    const client = consoleClient(s.gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
    const channel = (await s.gw.admin("GET", "/admin/channels")).body.data[0];
    for (const enabled of ["false", "true", "false"]) {
      await (await client.post(`/console/channels/${channel.id}/enabled`, { enabled })).body
        ?.cancel();
    }
    const all = await (await client.get(
      `/console/audit?target_kind=channel&target_id=${channel.id}&actor=console&limit=2`,
    )).text();
    assertEquals(all.match(/<tr>/g)?.length, 3, "a header and two rows");
    const next = all.match(/href="(\/console\/audit\?[^"]+)" rel="next"/)?.[1];
    assertOk(next, "a next page");
    const second = await (await client.get(next.replaceAll("&amp;", "&"))).text();
    assertEquals(second.match(/<tr>/g)?.length, 2, "a header and the last row");
    const none = await (await client.get("/console/audit?actor=config&target_kind=channel"))
      .text();
    assertOk(none.includes("No change matches."), "the filter applies");
    const bad = await client.get("/console/audit?since=yesterday");
    assertEquals(bad.status, 400);
    assertOk((await bad.text()).includes("since"), "names the parameter");
  },
);
